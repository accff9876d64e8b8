/// <reference types="astro/client" />

declare namespace App {
  /** Set by the edge (src/server/http.ts) for every request it hands to Astro. */
  interface Locals {
    services: import('./app/services.ts').Services;
    /** Echoed in X-Request-Id and every log line of this request. */
    requestId: string;
    /** The rate-limit identity of the caller (IP, IPv6 /64). */
    clientKey: string;
  }
}
