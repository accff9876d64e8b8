/**
 * The one CORS decision of a request, from the policy its route declares (src/server/routes.ts)
 * and the operator's origin settings: which CORS headers every response carries, and whether the
 * decision answers the request itself (a refused caller's 403, a preflight's 204). The edge
 * (src/server/admit.ts) and the in-process caller (`callOverFetch`, src/lib/endpoint.ts: `astro
 * dev` and tests) both ask it, so no endpoint judges an origin or answers a preflight itself.
 */
import { corsHeaders, EXPOSED_HEADERS, preflightHeaders } from './cors.ts';
import type { HttpError } from './http-error.ts';
import { allowOf, type Method } from './methods.ts';

/** What the operator allows (ALLOWED_ORIGINS, CHAT_ALLOW_NO_ORIGIN), read per request. */
export interface OriginSettings {
  /** Exact origins (scheme://host[:port]) whose pages may call the `origins` and gated routes. */
  allowedOrigins: readonly string[];
  /** A gated route also answers requests without Origin (curl, server-to-server). */
  allowNoOrigin: boolean;
}

/** A refused caller: no Origin (and the operator wants one), or an origin not on the list. */
export interface OriginRefusal {
  allowed: false;
  reason: 'missing' | 'not_listed';
  origin: string | undefined;
}

export type OriginDecision = { allowed: true; /** The caller's origin, to echo in CORS headers; undefined without one. */ origin: string | undefined } | OriginRefusal;

/**
 * A route only allowed callers may use at all (the chat: docs/interface.md section 4). Browsers
 * send `Origin` on every POST, same-origin included (Fetch standard, "append a request `Origin`
 * header"), so a page of another site cannot spend the route's work and rate budget on its
 * visitors' behalf; requests without it come from scripts and servers, refused unless the
 * operator allows them. The preflight is answered here, with the route's other methods.
 */
export interface OriginGate {
  kind: 'gate';
  /** Request headers a preflight grants beyond the safelisted ones (`content-type` for JSON bodies). */
  requestHeaders: readonly string[];
  /** The 403 of a refused caller, in the feature's words. */
  refuse: (refusal: OriginRefusal) => HttpError;
}

/** `public`: any origin may read it (`*`, GET/HEAD); `origins`: ALLOWED_ORIGINS get CORS answers; a gate (above); `none`. */
export type CorsPolicy = 'public' | 'origins' | 'none' | OriginGate;

export interface CorsDecision {
  /** Headers every response of the request carries (lower-case names). */
  headers: Readonly<Record<string, string>>;
  /** The gate refused the caller: answer this 403 with `headers`, before the body is read. */
  refusal?: HttpError;
  /** The gate answers the preflight: 204 with `headers` and these (none repeats a name of `headers`). */
  preflight?: Readonly<Record<string, string>>;
}

const NONE: CorsDecision = { headers: {} };
/** Public read resources: any page may fetch them and read the limit headers. */
const PUBLIC_READ: CorsDecision = { headers: { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS.join(', ') } };

/**
 * Decide from the raw `Origin` header value. `null` (the serialised opaque origin of sandboxed
 * frames, `file:` pages and some redirects, RFC 6454 section 7.3) is an origin, never listed.
 */
export function checkOrigin(originHeader: string | null | undefined, settings: OriginSettings): OriginDecision {
  const origin = originHeader?.trim() || undefined;
  if (origin === undefined) return settings.allowNoOrigin ? { allowed: true, origin } : { allowed: false, reason: 'missing', origin };
  return settings.allowedOrigins.includes(origin) ? { allowed: true, origin } : { allowed: false, reason: 'not_listed', origin };
}

/**
 * A gated route's decision. An OPTIONS without Origin is a plain capability query (RFC 9110
 * section 9.3.7) and gets `Allow`; from an allowed origin, a preflight granting the route's other
 * methods; a refused caller gets the gate's 403 without CORS grants (so a browser fails the call).
 */
function gated(gate: OriginGate, method: string, methods: readonly Method[], originHeader: string | undefined, settings: OriginSettings): CorsDecision {
  const allow = allowOf(methods);
  if (method === 'OPTIONS' && !originHeader) return { headers: { vary: 'Origin' }, preflight: { allow } };
  const decision = checkOrigin(originHeader, settings);
  const headers = corsHeaders(decision);
  if (!decision.allowed) return { headers, refusal: gate.refuse(decision) };
  if (method !== 'OPTIONS') return { headers };
  const granted = preflightHeaders({ ...decision, methods: methods.filter((m) => m !== 'OPTIONS'), headers: gate.requestHeaders });
  const preflight: Record<string, string> = { allow };
  for (const name in granted) if (!(name in headers)) preflight[name] = granted[name]!;
  return { headers, preflight };
}

/** The CORS decision of a request with `method` and `Origin` on a route declaring `policy` and `methods`. */
export function judgeCors(policy: CorsPolicy, method: string, methods: readonly Method[] | undefined, originHeader: string | undefined, settings: OriginSettings): CorsDecision {
  if (policy === 'none') return NONE;
  if (policy === 'public' && (method === 'GET' || method === 'HEAD')) return PUBLIC_READ;
  if (typeof policy === 'object') return gated(policy, method, methods ?? [], originHeader, settings);
  return { headers: corsHeaders({ origin: originHeader, allowed: originHeader !== undefined && settings.allowedOrigins.includes(originHeader) }) };
}

/** The origin settings of a configuration (src/app/config.ts); none: no origin is allowed. */
export function originSettingsOf(config: { ALLOWED_ORIGINS: readonly string[]; CHAT_ALLOW_NO_ORIGIN: boolean } | undefined): OriginSettings {
  return { allowedOrigins: config?.ALLOWED_ORIGINS ?? [], allowNoOrigin: config?.CHAT_ALLOW_NO_ORIGIN ?? false };
}
