/**
 * The build's schedule (src/features/news/schedule.ts): its instant and the editions after it.
 * Not a public file: the build step (src/app/schedule-integration.ts) reads it and removes it.
 */
import type { APIRoute } from 'astro';
import { getCollection } from 'astro:content';
import { buildInstant, scheduleOf } from '../../features/news/schedule.ts';

export const prerender = true;

export const GET: APIRoute = async () => {
  const schedule = scheduleOf(await getCollection('news'), buildInstant());
  return new Response(JSON.stringify(schedule), { headers: { 'content-type': 'application/json' } });
};
