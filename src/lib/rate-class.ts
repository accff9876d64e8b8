/**
 * The rate classes: which set of windows a request spends. The edge's route table assigns a
 * class to each route and method (src/server/routes.ts); the rate-limit feature defines each
 * class's windows (src/features/ratelimit/policies.ts).
 */
export type RateClass = 'site' | 'chat' | 'contact' | 'data' | 'page';
