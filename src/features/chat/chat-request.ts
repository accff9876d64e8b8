/**
 * The ChatRequest body of `POST /api/chat` (interface spec sections 2 and 4) and its parsing:
 * content type, size, JSON syntax, then shape. Every refusal is an `HttpError` naming what is
 * wrong, so the route answers 400/413/415 problem+json (RFC 9457) through the one renderer.
 */
import { z } from 'zod';
import { isJsonMediaType } from '../../lib/media-type.ts';
import { HttpError } from '../../lib/http-error.ts';

/** Conversation limits. The edge enforces the byte limit while reading; it is re-checked here. */
export const CHAT_LIMITS = {
  /** Most messages one request may carry. */
  maxMessages: 50,
  /** Longest message content, in characters (UTF-16 code units, as `String.length` counts). */
  maxContentChars: 4000,
  /** Largest request body, in bytes. */
  maxBodyBytes: 64 * 1024,
} as const;

/** One turn of the conversation. */
export const ChatMessage = z
  .object({
    /** Who wrote the turn: the visitor (`user`) or the site assistant (`assistant`). */
    role: z
      .enum(['user', 'assistant'], { error: 'must be "user" or "assistant"' })
      .meta({ description: 'Who wrote the turn: the visitor (`user`) or the site assistant (`assistant`).', examples: ['user'] }),
    /** The text of the turn: not blank, at most 4,000 characters. */
    content: z
      .string({ error: 'must be a string' })
      .max(CHAT_LIMITS.maxContentChars, `must be at most ${CHAT_LIMITS.maxContentChars} characters`)
      .refine((text) => text.trim().length > 0, 'must not be empty')
      .meta({ description: 'The text of the turn: not blank, at most 4,000 characters.', examples: ['How do I get daily statistics as JSON?'] }),
  })
  .meta({ title: 'ChatMessage', description: 'One turn of the conversation.' });
export type ChatMessage = z.infer<typeof ChatMessage>;

/** The body of `POST /api/chat`. Unknown members are ignored. */
export const ChatRequest = z.object(
  {
    /** The conversation so far, oldest first, ending with the visitor's new message. */
    messages: z
      .array(ChatMessage, { error: 'must be an array of {role, content} objects' })
      .min(1, 'must contain at least one message')
      .max(CHAT_LIMITS.maxMessages, `must contain at most ${CHAT_LIMITS.maxMessages} messages`)
      .refine((messages) => messages.at(-1)?.role !== 'assistant', 'must end with a message from the user')
      .meta({ description: "The conversation so far, oldest first, ending with the visitor's new message: 1 to 50 turns." }),
  },
  { error: 'The body must be a JSON object with a messages array' },
).meta({ description: 'The conversation to answer. Unknown members are ignored.' });
export type ChatRequest = z.infer<typeof ChatRequest>;

/** One invalid field, as listed in the problem's `errors` extension. */
export interface FieldError {
  /** Where in the body, e.g. `messages[2].content`; empty for the body itself. */
  path: string;
  /** What is wrong with it, e.g. `must not be empty` (reads on from the path). */
  message: string;
}

/** `messages[2].content` style paths, the way a reader of the body would write them. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}


/**
 * Turn a request's content type and body text into a ChatRequest, or throw the HttpError that
 * says why not: 415 for a non-JSON type, 413 over the byte limit, 400 `empty_body`,
 * `malformed_json` or `validation_failed` (with every invalid field in `errors`).
 */
export function parseChatRequest(contentType: string | null, body: string): ChatRequest {
  if (!isJsonMediaType(contentType)) {
    throw new HttpError(415, 'unsupported_media_type', {
      detail: `The body must be JSON; got content type ${contentType ? `"${contentType}"` : 'none'}.`,
      resolution: 'Send the conversation as JSON with the header Content-Type: application/json.',
      // Accept-Post (W3C LDP, registered in the IANA header registry) names what POST takes.
      headers: { 'accept-post': 'application/json' },
    });
  }
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > CHAT_LIMITS.maxBodyBytes) {
    throw new HttpError(413, 'payload_too_large', {
      detail: `The request body is ${bytes} bytes; the limit is ${CHAT_LIMITS.maxBodyBytes}.`,
      resolution: 'Send fewer or shorter messages, for example only the recent part of the conversation.',
    });
  }
  if (body.trim() === '') {
    throw new HttpError(400, 'empty_body', {
      detail: 'The request body is empty.',
      resolution: 'Send a JSON object such as {"messages":[{"role":"user","content":"Hello"}]}.',
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new HttpError(400, 'malformed_json', {
      detail: `The request body is not valid JSON: ${(error as Error).message}.`,
      resolution: 'Check the JSON syntax (quotes, commas, brackets) of the body.',
    });
  }
  const parsed = ChatRequest.safeParse(json);
  if (!parsed.success) {
    const errors: FieldError[] = parsed.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
    const first = errors[0]!;
    throw new HttpError(400, 'validation_failed', {
      detail: first.path ? `${first.path} ${first.message}.` : `${first.message}.`,
      resolution: `Send 1 to ${CHAT_LIMITS.maxMessages} messages, each {"role":"user"|"assistant","content":"..."} with 1 to ${CHAT_LIMITS.maxContentChars} characters, the last from the user.`,
      extensions: { errors },
    });
  }
  return parsed.data;
}
