/**
 * The Content-Security-Policy header of documents: the directives a <meta> CSP cannot carry
 * (frame-ancestors, CSP3 section 6.4.1) and the few Astro's per-page policy leaves out. The edge
 * sends it with every page (src/server/security.ts), and the contact form's server-rendered
 * answer (src/features/contact/contact-page.server.ts) with its HTML: one policy, one place.
 */
export const PAGE_CSP = "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'";
