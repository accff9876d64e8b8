/**
 * A generated news archive for the assistant's evaluation at archive size: `count` articles with
 * headings about nothing in particular ("Benchmark article number n", as the bench's generated
 * articles have) whose bodies repeat, several times each, the words visitors ask the assistant
 * with: the statistics page, the contact form, the API reference, sellers.json, rate limits,
 * Singapore, transparency reports. An article that merely repeats a question's words must never
 * answer it ahead of the page or the article that is about it. Deterministic: the same `count`
 * always gives the same archive.
 */
import type { NewsDoc } from '../../src/features/chat/passages.ts';

/** The bench's generated body (bench/scenarios/astro-build.ts), which every article opens with. */
const BENCH_BODY = `This article was generated to measure how the build scales with the news archive.

## A section

Auction volumes, seller transparency and the data API are the usual subjects. Here is a list:

- one item with **bold** text
- another with a [link](/news/)

The last paragraph closes the article with a sentence or two about what comes next.`;

/** Sentences that use the site's words without being about any of its pages or articles. */
const MENTIONS = [
  'Daily statistics of impressions, revenue and transactions came up again at the conference, with charts and a CSV table on a slide.',
  'The team answered a contact form question about priorities, and the contact team thanked readers who reach out with a message.',
  'Our API reference, the API documentation and the OpenAPI document were shown at a meetup; the endpoints and parameters drew questions.',
  'A panel on sellers.json and ads.txt asked what a sellers.json file lists and how buyers check authorised sellers.',
  'Rate limits, requests a minute and requests a day were one topic among many for the data API users we met.',
  'A guest from Singapore spoke about latency, a new region and the round trip of a bid request.',
  'The transparency report of every half year was quoted, with its figures on auctions, sellers and revenue.',
  'The supply chain object, the privacy sandbox and the RSS feed of the news were on the agenda too.',
  'Where to download statistics, how to contact the team and where the charts are: readers asked us all of it.',
];

export function generatedArchive(count: number): NewsDoc[] {
  return Array.from({ length: count }, (_, n) => {
    // Three different sentences per article, the first one twice, so that each word is repeated.
    const picked = [0, 0, 4, 7].map((step) => MENTIONS[(n + step) % MENTIONS.length]!);
    return {
      id: `bench-article-${String(n + 1).padStart(4, '0')}`,
      heading: `Benchmark article number ${n + 1}`,
      subheading: 'One of the generated articles that measure how the build scales with the news archive.',
      body: `${BENCH_BODY}\n\n## Around the exchange\n\n${picked.join(' ')}`,
      createdAt: new Date(Date.UTC(2023, 0, 1) + n * 6 * 3_600_000),
    };
  });
}
