/**
 * What a stored submission holds of the form, and when two hold the same: a retry with an
 * Idempotency-Key is stored once only if its content is the same (contact.server.ts).
 */
import type { ContactPayload } from './contact-payload.ts';

/** The columns a submission's content occupies; empty optional text is stored as null. */
export interface SubmissionContent {
  name: string;
  job_title: string | null;
  work_email: string;
  priority: ContactPayload['priority'];
  message: string | null;
}

export function submissionContent(payload: ContactPayload): SubmissionContent {
  return {
    name: payload.name,
    job_title: payload.job_title || null,
    work_email: payload.work_email,
    priority: payload.priority,
    message: payload.message || null,
  };
}

/** Whether a stored submission carries the same content (a retry, not a reuse of its key). */
export function sameContent(a: SubmissionContent, b: SubmissionContent): boolean {
  return a.name === b.name && a.job_title === b.job_title && a.work_email === b.work_email && a.priority === b.priority && a.message === b.message;
}
