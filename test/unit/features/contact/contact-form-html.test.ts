/**
 * The one template of the contact form (contact-form-html.ts) and the built page's form swapped
 * for it (contact-page.server.ts): values kept and escaped, each error beside its field and
 * named first in aria-describedby, a summary linking to the fields.
 */
import { describe, expect, it } from 'vitest';
import { contactPageWith } from '../../../../src/features/contact/contact-page.server.ts';
import { escapeHtml, renderContactForm } from '../../../../src/features/contact/contact-form-html.ts';

describe('renderContactForm', () => {
  it('renders the empty form that posts natively to /api/contact, with no error shown', () => {
    const html = renderContactForm();
    expect(html).toContain('<form class="form" method="post" action="/api/contact"');
    expect(html).not.toContain('aria-invalid');
    expect(html).not.toContain('is-shown');
    expect(html).not.toContain('<noscript>');
    expect(html).toMatch(/<button type="submit" class="button" data-contact-submit>Send message<\/button>/);
  });

  it('keeps the values, escaped, and checks the chosen priority', () => {
    const html = renderContactForm({ values: { name: 'Ada "<b>"', job_title: 'R&D', message: '</textarea><script>x</script>', priority: 'standard' } });
    expect(html).toContain('value="Ada &quot;&lt;b&gt;&quot;"');
    expect(html).toContain('value="R&amp;D"');
    expect(html).toContain('&lt;/textarea&gt;&lt;script&gt;x&lt;/script&gt;</textarea>');
    expect(html).toContain('value="standard" required checked');
    expect(html).not.toContain('<script>');
  });

  it('puts each error beside its field, first in its description, and links to it from the summary', () => {
    const html = renderContactForm({
      values: { name: '', work_email: 'ada@' },
      errors: [
        { field: 'name', message: 'Name is required.' },
        { field: 'work_email', message: 'Work email must be an email address such as ada@example.com.' },
        { field: 'priority', message: 'Priority is required.' },
      ],
    });
    expect(html).toContain('<p class="field-error" id="contact-name-error" data-error-for="name">Name is required.</p>');
    expect(html).toContain('aria-invalid="true" aria-describedby="contact-email-error contact-email-hint"');
    expect(html).toContain('<fieldset class="field choices is-invalid" aria-describedby="contact-priority-error contact-priority-hint">');
    expect(html).toContain('<div class="summary is-shown" role="alert" tabindex="-1" autofocus data-contact-summary><h2>Please correct these 3 things before sending:</h2>');
    expect(html).toContain('<li><a href="#contact-email">Work email must be an email address such as ada@example.com.</a></li>');
    expect(html).toContain('<li><a href="#contact-priority-high">Priority is required.</a></li>');
    // A field without an error keeps its slot hidden.
    expect(html).toContain('<p class="field-error" id="contact-job-title-error" data-error-for="job_title" hidden></p>');
  });

  it('shows a problem with the whole submission in the summary, and says the check needs JavaScript', () => {
    const html = renderContactForm({ problem: { heading: 'Your message was not sent', lines: ['It could not be stored.'] }, altcha: true });
    expect(html).toContain('<h2>Your message was not sent</h2><ul><li>It could not be stored.</li></ul>');
    expect(html).toMatch(/<noscript><p class="notice">[^<]*needs JavaScript/);
  });

  it('escapes the five characters that matter', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

describe('contactPageWith', () => {
  const page = `<html><head><title>Contact</title></head><body><main>${renderContactForm()}</main></body></html>`;

  it('swaps the empty form for the rendered one and marks the title', () => {
    const html = contactPageWith(page, { values: { name: 'Ada' }, errors: [{ field: 'work_email', message: 'Work email is required.' }] });
    expect(html).toContain('<title>Error: Contact</title>');
    expect(html).toContain('value="Ada"');
    expect(html.match(/<form /g)).toHaveLength(1);
  });

  it('refuses a page that does not hold the form this code renders (a build of other code)', () => {
    expect(() => contactPageWith(page.replace('Send message', 'Send'), {})).toThrow(/rebuild/);
  });
});
