/**
 * The ChatRequest body of `POST /api/chat` (docs/interface.md sections 2 and 3) and its validation.
 * The body itself is read by src/lib/json-body.ts, like every JSON body; every refusal is an
 * `HttpError`, so the route answers 400/413/415 problem+json (RFC 9457) through the one renderer.
 */
import { z } from 'zod';
import { cleanText } from '../../lib/clean-text.ts';
import { fieldErrors, validationFailed } from '../../lib/field-error.ts';
import { checkJsonRepresentation, parseJsonObject, type JsonBodyOptions } from '../../lib/json-body.ts';

/** Conversation limits. */
export const CHAT_LIMITS = {
  /** Most messages one request may carry. */
  maxMessages: 50,
  /** Longest message content, in characters (UTF-16 code units, as `String.length` counts). */
  maxContentChars: 4000,
  /**
   * Largest request body, in bytes: the chat route's `bodyLimit` in the route table
   * (src/server/routes.ts), within which the body is read before the endpoint sees it.
   */
  maxBodyBytes: 64 * 1024,
} as const;

/** The words of the chat body's refusals (src/lib/json-body.ts). */
export const CHAT_BODY: JsonBodyOptions = {
  subject: 'the conversation',
  example: '{"messages":[{"role":"user","content":"Hello"}]}',
  shape: 'a JSON object with a messages array',
};

/** One turn of the conversation. */
export const ChatMessage = z
  .object({
    role: z
      .enum(['user', 'assistant'], { error: 'must be "user" or "assistant"' })
      .meta({
        description:
          'Who wrote the turn: the visitor (`user`) or the site assistant (`assistant`). The server keeps no transcript, so it cannot tell a real assistant turn from one the client wrote: assistant turns are never passed to a language model as its own words.',
        examples: ['user'],
      }),
    content: z
      .string({ error: 'must be a string' })
      .max(CHAT_LIMITS.maxContentChars, `must be at most ${CHAT_LIMITS.maxContentChars} characters`)
      .regex(/\S/, 'must not be empty')
      .check(cleanText())
      .meta({
        description: 'The text of the turn: not blank, at most 4,000 characters, without NUL characters or unpaired surrogates.',
        examples: ['How do I get daily statistics as JSON?'],
      }),
  })
  .meta({ title: 'ChatMessage', description: 'One turn of the conversation.' });
export type ChatMessage = z.infer<typeof ChatMessage>;

/** The body of `POST /api/chat`. Unknown members are ignored. */
export const ChatRequest = z
  .object({
    messages: z
      .array(ChatMessage, { error: 'must be an array of {role, content} objects' })
      .min(1, 'must contain at least one message')
      .max(CHAT_LIMITS.maxMessages, `must contain at most ${CHAT_LIMITS.maxMessages} messages`)
      .refine((messages) => messages.at(-1)?.role !== 'assistant', 'must end with a message from the user')
      .meta({ description: "The conversation so far, oldest first, ending with the visitor's new message: 1 to 50 turns." }),
  })
  .meta({ description: 'The conversation to answer. Unknown members are ignored.' });
export type ChatRequest = z.infer<typeof ChatRequest>;

const RESOLUTION = `Send 1 to ${CHAT_LIMITS.maxMessages} messages, each {"role":"user"|"assistant","content":"..."} with 1 to ${CHAT_LIMITS.maxContentChars} characters, the last from the user.`;

/** A JSON object (as json-body.ts reads it) to a ChatRequest, or the 400 listing every invalid field. */
export function chatRequestFrom(body: Record<string, unknown>): ChatRequest {
  const parsed = ChatRequest.safeParse(body);
  if (parsed.success) return parsed.data;
  // zod's messages here are the schema's own, written to read on from the path.
  throw validationFailed(
    fieldErrors(parsed.error.issues, (issue, field) => ({ message: `${field || 'The body'} ${issue.message}.` })),
    RESOLUTION,
  );
}

/**
 * A content type and body text to a ChatRequest, or the HttpError that says why not (for
 * callers that hold the text, such as the OpenAPI examples; the endpoint checks the body it was
 * given with the same two steps). The same rules, minus the byte limit, which belongs to reading.
 */
export function parseChatRequest(contentType: string | null, body: string): ChatRequest {
  checkJsonRepresentation(new Headers(contentType === null ? {} : { 'content-type': contentType }), CHAT_BODY);
  return chatRequestFrom(parseJsonObject(new TextEncoder().encode(body), CHAT_BODY));
}
