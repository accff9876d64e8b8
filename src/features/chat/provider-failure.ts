/**
 * What the log says about a failed LLM call: the error's name, the provider's HTTP status, a
 * system or guard code, and the provider's host; nothing else. The provider's message may repeat
 * the bearer token (some 401s do), and the AI SDK's errors carry the request body
 * (`requestBodyValues`: the instructions and every visitor turn) and the response body; visitor
 * text has no place in logs that outlive contact retention and erasure.
 */
export interface ProviderFailure {
  /** The most specific error's name, e.g. AI_APICallError, TypeError, OutboundRefusedError. */
  name: string;
  /** The provider's HTTP status, when it answered one. */
  status?: number;
  /** A system or guard code (ECONNREFUSED, UND_ERR_SOCKET, ERR_OUTBOUND_REFUSED...), when one. */
  code?: string;
  /** The provider's host (and port) from LLM_BASE_URL. */
  host: string;
}

/** Our wrapper around the provider's error: the cause says more. */
const WRAPPERS = new Set(['LlmUnavailableError']);
const CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

export function providerFailure(error: unknown, baseUrl: string): ProviderFailure {
  let name: string | undefined;
  let status: number | undefined;
  let code: string | undefined;
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const fields = e as { name?: unknown; statusCode?: unknown; status?: unknown; code?: unknown };
    if (name === undefined && typeof fields.name === 'string' && !WRAPPERS.has(fields.name)) name = fields.name;
    const answered = typeof fields.statusCode === 'number' ? fields.statusCode : typeof fields.status === 'number' ? fields.status : undefined;
    if (status === undefined && answered !== undefined && Number.isInteger(answered)) status = answered;
    if (code === undefined && typeof fields.code === 'string' && CODE.test(fields.code)) code = fields.code;
  }
  const failure: ProviderFailure = { name: name ?? (error instanceof Error ? error.name : typeof error), host: URL.parse(baseUrl)?.host ?? 'unknown' };
  if (status !== undefined) failure.status = status;
  if (code !== undefined) failure.code = code;
  return failure;
}
