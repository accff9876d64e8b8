/**
 * Resources of the community data interface (interface spec section 2: DataResponse, DataRecord).
 * The single source of the response's shape: the handler builds values of these types and the
 * OpenAPI document and tests derive from the same schemas.
 */
import { z } from 'zod';

export const DataRecord = z
  .object({
    /** The UTC calendar day the record is for, YYYY-MM-DD. */
    date: z.iso.date().describe('The UTC calendar day the record is for, YYYY-MM-DD.'),
    /** Number of transactions that day. */
    txn_count: z.int().nonnegative().describe('Number of transactions that day.'),
    /** Number of impressions that day. */
    impr_count: z.int().nonnegative().describe('Number of impressions that day.'),
    /** Revenue of that day's transactions in currency units, exact to the cent (at most two decimals). */
    service_revenue: z
      .number()
      .nonnegative()
      .describe("Revenue of that day's transactions in currency units, exact to the cent (at most two decimals)."),
  })
  .describe('Aggregated statistics of one UTC day.');
export type DataRecord = z.infer<typeof DataRecord>;

export const DataResponse = z
  .object({
    /** Success indicator: always the text `Success` on a 200 response. */
    status: z.literal('Success').describe('Success indicator: always the text `Success` on a 200 response.'),
    /** One record per materialised day of the range, ascending by date; days not yet materialised are absent. */
    data: z
      .array(DataRecord)
      .describe('One record per materialised day of the range, ascending by date; days not yet materialised (today, the future) are absent.'),
  })
  .describe('Daily statistics for a date range of at most 31 days.');
export type DataResponse = z.infer<typeof DataResponse>;
