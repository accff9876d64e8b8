/**
 * `POST /api/chat` as an endpoint (src/lib/endpoint.ts), bound to its path in the route table.
 * docs/interface.md sections 3 and 5: 400 for a bad ChatRequest, 200 `text/plain` streamed
 * otherwise. Who may call it (403 for an origin that is not allowed), its CORS headers and its
 * preflight are the route's CORS policy (origin-policy.ts), judged before the endpoint runs.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { HttpError, renderError, toHttpError } from '../../lib/http-error.ts';
import type { Endpoint } from '../../lib/endpoint.ts';
import { composeReply, CONTACT_PATH, replyChunks, retrieve, sourcesOf, type BuiltInReply } from './built-in-assistant.ts';
import { parseJsonBody } from '../../lib/json-body.ts';
import { CHAT_BODY, chatRequestFrom, type ChatMessage } from './chat-request.ts';
import type { AssistantIndex, SearchHit } from './assistant-index.ts';
import type { LlmSettings } from './llm-assistant.server.ts';
import { providerFailure } from './provider-failure.ts';
import { isLoopbackHost, publicFetch } from '../../lib/outbound-guard.ts';
import { formatSourcesLink, type ChatSource } from './sources.ts';
import type { HelpFactsConfig } from './help-facts.ts';
import { NO_METER, type Meter } from '../../lib/meter.ts';

/** The settings the chat reads (help-facts.ts: the limits its help pages state); the composition root's configuration has them all. */
export interface ChatSettings extends HelpFactsConfig {
  SITE_URL: string;
  LLM_BASE_URL?: string | undefined;
  LLM_MODEL?: string | undefined;
  LLM_API_KEY?: string | undefined;
  LLM_TIMEOUT_MS: number;
  LLM_ALLOW_PRIVATE: boolean;
  /** Ports the LLM client may use besides 80 and 443 (src/lib/outbound-guard.ts). */
  OUTBOUND_ALLOW_PORTS: readonly number[];
}

export interface ChatDeps {
  config: ChatSettings;
  log: Logger;
  /** The search index, opened once by the caller; awaited on the first reply only. */
  assistantIndex: () => AssistantIndex | Promise<AssistantIndex>;
  /**
   * Pause between pieces of a built-in reply, in ms (default 12). The reply exists at once; the
   * pacing lets the widget show it growing and lets the event loop serve others in between.
   */
  chunkDelayMs?: number;
  /** Fetch used to reach the LLM (default: the outbound guard's, see llmFetch). */
  fetch?: typeof fetch;
  /** chat_replies_total, chat_provider_failures_total, chat_first_byte_seconds; NO_METER when absent. */
  meter?: Meter;
}

/** Methods the route answers (as the route table declares them), named in the 405's `Allow` (chat.openapi.ts). */
export const CHAT_ALLOW = 'OPTIONS, POST';

const REPLY_HEADERS = {
  'content-type': 'text/plain; charset=utf-8',
  // A reply is for one conversation; no cache may keep or reuse it.
  'cache-control': 'no-store',
  // Ask nginx-style proxies not to buffer the stream (the edge never compresses text/plain
  // streams: it only compresses bodies it already holds in full).
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
} as const;

const UNAVAILABLE_TEXT = `Sorry, I can't look anything up right now. Please try again in a moment, or write to the team: ${CONTACT_PATH}`;

/**
 * Validate, then stream the reply. Never throws. The route table declares OPTIONS and POST: the
 * caller refuses any other method with 405 (src/lib/methods.ts) and answers OPTIONS itself.
 */
export const chatEndpoint: Endpoint<ChatDeps> = async (request, deps) => {
  const started = performance.now();
  const meter = deps.meter ?? NO_METER;
  try {
    const chat = chatRequestFrom(parseJsonBody(request.body ?? new Uint8Array(0), request.headers, CHAT_BODY));
    // Stopped by the client going away (the request's signal) or by the reader cancelling.
    const stop = new AbortController();
    const signal = AbortSignal.any([request.signal, stop.signal]);
    const reply = await prepareReply(chat.messages, signal, deps);
    const link = formatSourcesLink(reply.sources);
    meter.count('chat_replies_total', { assistant: reply.assistant });
    const body = replyStream(reply, signal, stop, deps.log, () => meter.observe('chat_first_byte_seconds', (performance.now() - started) / 1000, { assistant: reply.assistant }));
    return { status: 200, headers: { ...REPLY_HEADERS, ...(link ? { link } : {}) }, body };
  } catch (error) {
    if (!(error instanceof HttpError)) deps.log.error({ err: error }, 'chat request failed');
    return renderError(toHttpError(error), request.url.pathname);
  }
};

/** A reply ready to stream: who answers, from which pages, and its text pieces (pulled on demand). */
interface PreparedReply {
  assistant: 'llm' | 'built-in';
  sources: readonly ChatSource[];
  pieces: AsyncGenerator<string, void, undefined>;
}

/**
 * Decide who answers and from which sources before the status line goes out, so the sources can
 * travel in the `Link` header: retrieval comes before generation anyway. With an LLM, this waits
 * for its first piece (bounded by LLM_TIMEOUT_MS): until then the built-in assistant may still
 * have to answer, with sources of its own.
 */
async function prepareReply(messages: readonly ChatMessage[], signal: AbortSignal, deps: ChatDeps): Promise<PreparedReply> {
  const delayMs = deps.chunkDelayMs ?? 12;
  const unavailable = (error: unknown): PreparedReply => {
    deps.log.error({ err: error }, 'assistant index unavailable');
    return { assistant: 'built-in', sources: [], pieces: paced(UNAVAILABLE_TEXT, delayMs, signal) };
  };
  let index: AssistantIndex;
  try {
    index = await deps.assistantIndex();
  } catch (error) {
    return unavailable(error);
  }

  const settings = llmSettings(deps);
  if (settings && !signal.aborted) {
    let hits: SearchHit[];
    try {
      hits = retrieve(messages, index, { config: deps.config });
    } catch (error) {
      return unavailable(error);
    }
    // Loaded only when an LLM is configured: the AI SDK is megabytes of code the built-in
    // assistant never runs (bench/NOTES.md, peak RSS).
    const { streamLlmReply } = await import('./llm-assistant.server.ts');
    const pieces = streamLlmReply({
      settings,
      messages,
      hits,
      siteUrl: deps.config.SITE_URL,
      signal,
      // By name, status and host only (provider-failure.ts): no prompt, no visitor text, no key.
      onError: (error) => {
        deps.meter?.count('chat_provider_failures_total');
        deps.log.warn({ llm: providerFailure(error, settings.baseUrl) }, 'LLM stream failed mid-reply; ended it');
      },
    });
    try {
      const first = await pieces.next();
      // The model's sources are the passages it was given as context.
      return { assistant: 'llm', sources: sourcesOf(hits), pieces: startingWith(first, pieces) };
    } catch (error) {
      // streamLlmReply only throws before its first piece: nothing was sent, answer anyway.
      if (!signal.aborted) deps.meter?.count('chat_provider_failures_total');
      if (!signal.aborted) deps.log.warn({ llm: providerFailure(error, settings.baseUrl) }, 'LLM unavailable; the built-in assistant answers');
    }
  }
  // The index is a file: a read that fails (the file damaged under a running server) is an
  // outage of the assistant, answered in words like a missing index, not a 500.
  let reply: BuiltInReply;
  try {
    reply = composeReply(messages, index, { siteUrl: deps.config.SITE_URL, config: deps.config });
  } catch (error) {
    return unavailable(error);
  }
  return { assistant: 'built-in', sources: reply.sources, pieces: paced(reply.text, delayMs, signal) };
}

/** The piece already read, then the rest; closing it closes the rest (and its upstream request). */
async function* startingWith(first: IteratorResult<string, void>, rest: AsyncGenerator<string, void, undefined>): AsyncGenerator<string, void, undefined> {
  try {
    if (first.done) return;
    yield first.value;
    yield* rest;
  } finally {
    await rest.return(undefined);
  }
}

/**
 * The reply as a byte stream that produces on demand (high-water mark 0: nothing is generated
 * ahead of the reader). Cancelling it or aborting the request stops generation and, through the
 * same signal, any upstream LLM request; a reply stopped that way is logged with how much of it
 * was sent. Failures end the stream normally: the status line has been sent, so the only honest
 * signal left is the text itself.
 */
function replyStream(reply: PreparedReply, signal: AbortSignal, stop: AbortController, log: Logger, onFirstByte: () => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const sent = { pieces: 0, chars: 0 };
  let ended = false;
  // A client that hangs up is seen as the reader cancelling (the edge, or Astro's Node adapter
  // under `astro dev`, cancels the body on close) or as the request's signal aborting, whichever
  // comes first.
  const stoppedEarly = () => {
    if (ended) return;
    ended = true;
    log.info({ assistant: reply.assistant, sources: reply.sources.length, ...sent }, 'chat reply stopped early');
  };
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (signal.aborted) stoppedEarly();
    ended = true;
    try {
      controller.close();
    } catch {
      // Already cancelled by the reader: nothing left to close.
    }
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          let next: IteratorResult<string, void>;
          try {
            next = await reply.pieces.next();
          } catch (error) {
            if (!signal.aborted) log.error({ err: error }, 'chat reply failed');
            return finish(controller);
          }
          if (next.done || signal.aborted) return finish(controller);
          if (next.value !== '') {
            if (sent.pieces === 0) onFirstByte();
            sent.pieces += 1;
            sent.chars += next.value.length;
            controller.enqueue(encoder.encode(next.value));
            return;
          }
        }
      },
      cancel(reason) {
        stoppedEarly();
        stop.abort(reason);
        // Lets the generator run its cleanup (closing an upstream stream) once it is idle.
        void reply.pieces.return(undefined).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

/** Built-in pieces, paced; stops quietly when the signal aborts. */
async function* paced(text: string, delayMs: number, signal: AbortSignal): AsyncGenerator<string, void, undefined> {
  let first = true;
  for (const chunk of replyChunks(text)) {
    if (!first) {
      try {
        await (delayMs > 0 ? sleep(delayMs, undefined, { signal }) : nextTurn(undefined, { signal }));
      } catch {
        return; // aborted
      }
    }
    if (signal.aborted) return;
    first = false;
    yield chunk;
  }
}

function llmSettings(deps: ChatDeps): LlmSettings | undefined {
  const { LLM_BASE_URL, LLM_MODEL, LLM_API_KEY, LLM_TIMEOUT_MS } = deps.config;
  if (!LLM_BASE_URL || !LLM_MODEL) return undefined;
  return { baseUrl: LLM_BASE_URL, model: LLM_MODEL, apiKey: LLM_API_KEY, timeoutMs: LLM_TIMEOUT_MS, fetch: deps.fetch ?? llmFetch(deps.config) };
}

/**
 * The provider is reached through the outbound guard (src/lib/outbound-guard.ts) unless the
 * operator put it on this machine (a loopback LLM_BASE_URL, e.g. Ollama) or on their own network
 * (LLM_ALLOW_PRIVATE): a provider's redirect, or a DNS answer for its name, must not lead the
 * request (and its key) into the operator's network. Undefined: the SDK's default fetch.
 */
export function llmFetch(config: Pick<ChatSettings, 'LLM_BASE_URL' | 'LLM_ALLOW_PRIVATE'> & Partial<Pick<ChatSettings, 'OUTBOUND_ALLOW_PORTS'>>): typeof fetch | undefined {
  if (config.LLM_ALLOW_PRIVATE || (config.LLM_BASE_URL !== undefined && isLoopbackHost(new URL(config.LLM_BASE_URL).hostname))) return undefined;
  return publicFetch(config.OUTBOUND_ALLOW_PORTS);
}
