/**
 * The bounds of the contact form (docs/interface.md section 2): its fields' lengths and its body's
 * size, read by the schema (contact-payload.ts), the page (contact-form-html.ts), the route table
 * and the assistant's help facts.
 */

/** Length bounds. Characters are UTF-16 code units, as `String.length` and zod count them. */
export const CONTACT_LIMITS = {
  nameChars: 200,
  jobTitleChars: 200,
  /** RFC 5321 section 4.5.3.1.3: a forward path holds at most 256 octets including `<` and `>`. */
  emailChars: 254,
  messageChars: 5000,
  /**
   * Largest request body, in bytes: the contact route's `bodyLimit` in the route table
   * (src/server/routes.ts), within which the body is read before the endpoint sees it.
   */
  bodyBytes: 32 * 1024,
} as const;
