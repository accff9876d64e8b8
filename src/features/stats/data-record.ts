/**
 * Resources of the community data interface (docs/interface.md section 2: DataResponse, DataRecord).
 * The single source of the response's shape: the handler builds values of these types and the
 * OpenAPI document and tests derive from the same schemas.
 */
import { z } from 'zod';

export const DataRecord = z
  .object({
    date: z.iso.date().meta({ description: 'The UTC calendar day the record is for, YYYY-MM-DD.', examples: ['2026-07-01'] }),
    txn_count: z.int().nonnegative().meta({ description: 'Number of transactions that day.', examples: [74] }),
    impr_count: z.int().nonnegative().meta({ description: 'Number of impressions that day.', examples: [2398] }),
    service_revenue: z
      .number()
      .nonnegative()
      .meta({ description: "Revenue of that day's transactions in currency units, exact to the cent (at most two decimals).", examples: [2519.64] }),
  })
  .meta({ title: 'DataRecord', description: 'Aggregated statistics of one UTC day.' });
export type DataRecord = z.infer<typeof DataRecord>;

export const DataResponse = z
  .object({
    status: z.literal('Success').meta({ description: 'Success indicator: always the text `Success` on a 200 response.', examples: ['Success'] }),
    data: z
      .array(DataRecord)
      .describe('One record per materialized day of the range, ascending by date; days not yet materialized (today, the future) are absent.'),
  })
  .meta({ description: 'Daily statistics for a date range of at most 31 days.' });
export type DataResponse = z.infer<typeof DataResponse>;
