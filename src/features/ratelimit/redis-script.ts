/**
 * The Redis side of the limiter: one Lua script that performs `evaluate` (decision.ts) for all
 * windows of a request in a single atomic step (Redis runs a script to completion before any
 * other command, so concurrent instances cannot interleave between check and charge).
 *
 * Correspondence with the TypeScript (keep them in step; the integration test replays one
 * random request sequence through both and expects identical decisions):
 *   refillBucket / bucketHasToken / takeToken / bucketLevel  -> the 'b' branches
 *   currentDayCount / dayHasQuota / countRequest / dayLevel  -> the 'd' branches
 *   evaluate: check every window first, write only if all admit -> the two loops
 * Each window's record is a hash {a, b}: a bucket stores a = units, b = updatedMs; a day
 * counter a = UTC day number, b = count. Integer units make Lua's doubles and JavaScript's
 * agree exactly (see token-bucket.ts). Numbers are written with '%.0f' because Redis turns Lua
 * numbers into strings with '%.14g', which would round timestamps and unit counts.
 *
 * A bucket's key expires when the bucket would be full again and a day counter's at the next
 * 00:00 UTC: an expired record and a missing one mean the same, so Redis holds only live state.
 */
import { decisionFromLevels } from './decision.ts';
import type { Decision, WindowLevel } from './limiter.ts';
import type { Window } from './policies.ts';

export const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
if not now then
  -- Server clock: one clock for every instance, so their skew cannot mint tokens.
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local DAY = 86400000
local n = #KEYS
local kind, limit, period, a, b = {}, {}, {}, {}, {}
local allowed = 1
for i = 1, n do
  kind[i] = ARGV[3 * i - 1]
  limit[i] = tonumber(ARGV[3 * i])
  period[i] = tonumber(ARGV[3 * i + 1])
  local rec = redis.call('HMGET', KEYS[i], 'a', 'b')
  local ra, rb = tonumber(rec[1]), tonumber(rec[2])
  if kind[i] == 'b' then
    -- refillBucket: a missing bucket is full; refill limit units per ms, capped; time never goes back.
    local cap = limit[i] * period[i]
    if ra == nil or rb == nil then
      a[i], b[i] = cap, now
    else
      a[i], b[i] = math.min(cap, ra + math.max(0, now - rb) * limit[i]), math.max(now, rb)
    end
    -- bucketHasToken
    if a[i] < period[i] then allowed = 0 end
  else
    -- currentDayCount: a counter of an earlier UTC day is empty.
    local today = math.floor(now / DAY)
    if ra == nil or rb == nil or ra < today then
      a[i], b[i] = today, 0
    else
      a[i], b[i] = ra, rb
    end
    -- dayHasQuota
    if b[i] >= limit[i] then allowed = 0 end
  end
end
local reply = { allowed, now }
for i = 1, n do
  local remaining, resetMs, retryMs
  if kind[i] == 'b' then
    local cap = limit[i] * period[i]
    local ahead = math.max(0, b[i] - now)
    if allowed == 1 then
      -- takeToken
      a[i] = a[i] - period[i]
    end
    -- bucketLevel
    remaining = math.floor(a[i] / period[i])
    resetMs = ahead + math.ceil((cap - a[i]) / limit[i])
    retryMs = 0
    if a[i] < period[i] then retryMs = ahead + math.ceil((period[i] - a[i]) / limit[i]) end
    if allowed == 1 then
      redis.call('HSET', KEYS[i], 'a', string.format('%.0f', a[i]), 'b', string.format('%.0f', b[i]))
      redis.call('PEXPIRE', KEYS[i], string.format('%.0f', math.max(1, resetMs)))
    end
  else
    if allowed == 1 then
      -- countRequest
      b[i] = b[i] + 1
    end
    -- dayLevel
    remaining = math.max(0, limit[i] - b[i])
    resetMs = (a[i] + 1) * DAY - now
    retryMs = 0
    if b[i] >= limit[i] then retryMs = resetMs end
    if allowed == 1 then
      redis.call('HSET', KEYS[i], 'a', string.format('%.0f', a[i]), 'b', string.format('%.0f', b[i]))
      redis.call('PEXPIRE', KEYS[i], string.format('%.0f', math.max(1, resetMs)))
    end
  end
  reply[#reply + 1] = remaining
  reply[#reply + 1] = resetMs
  reply[#reply + 1] = retryMs
end
return reply
`;

/**
 * `refundRequest` (utc-day-counter.ts) for every day counter in KEYS: ARGV[1] is the UTC day
 * number the take charged. The count goes down by one only if the counter is still of that day
 * and above 0, so a refund after midnight, or of a record that expired, changes nothing. The
 * expiry is kept (it is the next 00:00 UTC either way).
 */
export const REFUND_SCRIPT = `
local day = tonumber(ARGV[1])
for i = 1, #KEYS do
  local rec = redis.call('HMGET', KEYS[i], 'a', 'b')
  local ra, rb = tonumber(rec[1]), tonumber(rec[2])
  if ra ~= nil and rb ~= nil and ra == day and rb > 0 then
    redis.call('HSET', KEYS[i], 'b', string.format('%.0f', rb - 1))
  end
end
return 1
`;

/**
 * Store key of one window of one client. The client key is a Redis Cluster hash tag (`{...}`),
 * so all windows of a client live in one slot and one script may touch them together.
 */
export function windowKey(prefix: string, clientKey: string, window: Window): string {
  return `${prefix}{${clientKey}}:${window.name}`;
}

/** ARGV of the script: the time ('' for the server's clock), then kind, limit, periodMs per window. */
export function scriptArgs(windows: readonly Window[], nowMs: number | undefined): string[] {
  return [
    nowMs === undefined ? '' : String(Math.floor(nowMs)),
    ...windows.flatMap((w) => [w.kind === 'bucket' ? 'b' : 'd', String(w.limit), String(w.periodSeconds * 1000)]),
  ];
}

/** Turn the script's reply into a Decision; throws on a reply of the wrong shape. */
export function decisionFromReply(windows: readonly Window[], reply: unknown): Decision {
  if (!Array.isArray(reply) || reply.length !== 2 + 3 * windows.length) {
    throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const numbers = reply.map(Number);
  if (numbers.some((n) => !Number.isFinite(n))) throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  const levels: WindowLevel[] = windows.map((_, i) => ({
    remaining: numbers[2 + 3 * i]!, // length checked above
    resetMs: numbers[3 + 3 * i]!,
    retryMs: numbers[4 + 3 * i]!,
  }));
  return { ...decisionFromLevels(windows, levels, numbers[0] === 1), nowMs: numbers[1]!, shared: true };
}
