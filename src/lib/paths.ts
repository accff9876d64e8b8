/**
 * The public paths of the service, each spelled once. The edge's route table
 * (src/server/routes.ts), the OpenAPI document, the pages, the jobs and the integrator client all
 * import them from here: a path literal anywhere else is a second source that can drift.
 */
export const PATHS = {
  news: '/api/news',
  contact: '/api/contact',
  /** ALTCHA proof-of-work challenges for the contact form (204 when the check is off). */
  contactChallenge: '/api/contact/challenge',
  /** Where a contact form posted without JavaScript lands once stored (303 See Other). */
  contactThanks: '/contact/thanks/',
  chat: '/api/chat',
  sellers: '/sellers.json',
  openapi: '/openapi.json',
  /** The community data interface: every path below `dataPrefix` answers in its error format. */
  dataPrefix: '/api/v1/public',
  data: '/api/v1/public/data',
  /** The stats page, rendered per request from the same daily records. */
  stats: '/stats',
  /** The operators' console (src/features/console): pages below it, and its POST endpoints. */
  console: '/admin',
  consoleSignInOptions: '/admin/sign-in/options',
  consoleSignIn: '/admin/sign-in/verify',
  consoleEnrolOptions: '/admin/enrol/options',
  consoleEnrol: '/admin/enrol/verify',
  consoleSignOut: '/admin/sign-out',
  consoleAction: '/admin/act',
  healthz: '/healthz',
  readyz: '/readyz',
  /** Prometheus exposition for a scraper holding METRICS_TOKEN; 404 to everyone else. */
  metrics: '/metrics',
} as const;
