export const prerender = true;
export function GET() { return new Response(JSON.stringify([]), { headers: { 'content-type': 'application/json' } }); }
