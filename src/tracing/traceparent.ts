/** A W3C `traceparent` (Trace Context, version 00): version, trace id, parent span id, flags. */
export const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
