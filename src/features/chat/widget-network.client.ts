/**
 * The chat widget's one request: the conversation posted to PATHS.chat (/api/chat) and the
 * reply read as the bytes arrive (fetch + body.getReader()). Aborting the signal ends the
 * request, and the server then stops generating.
 */
import { PATHS } from '../../lib/paths.ts';
import { turnsToSend, type Turn } from './widget-state.client.ts';

export function postConversation(turns: readonly Turn[], signal: AbortSignal): Promise<Response> {
  return fetch(PATHS.chat, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: turnsToSend(turns) }),
    signal,
  });
}

/** A refusal in words for the status line, with the problem's `detail`; '' for a 429 (the hold says it). */
export async function explain(response: Response): Promise<string> {
  if (response.status === 429) return '';
  let detail = '';
  if (response.headers.get('content-type')?.includes('json')) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: unknown };
    if (typeof problem.detail === 'string') detail = ` ${problem.detail}`;
  }
  return `Sorry, the assistant could not answer (HTTP ${response.status}).${detail}`;
}

/** Read the streamed reply, handing `onText` all the text so far after each chunk; the whole text at the end. */
export async function readReply(body: ReadableStream<Uint8Array>, onText: (text: string) => void): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    onText(text);
  }
  return text + decoder.decode();
}
