import type { APIRoute } from 'astro';
export const prerender = false;
export const GET: APIRoute = ({ locals }) => new Response(JSON.stringify({ ok: true, l: Object.keys(locals) }), { headers: { 'content-type': 'application/json' } });
