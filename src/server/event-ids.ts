/**
 * Random per process, so that ids minted by several processes never meet. Drawn at the first
 * event, not at import: Workers refuse random numbers at start-up (global scope).
 */
let eventIdPrefix: string | undefined;
let eventCount = 0;

/** The event with an id (see SubscriptionEvent.id), given one if it had none. */
export function withEventId<T extends { id?: string }>(event: T): T {
  if (event.id !== undefined) return event;
  eventIdPrefix ??= globalThis.crypto.randomUUID().slice(0, 8);
  eventCount += 1;
  return { ...event, id: `${eventIdPrefix}.${eventCount}` };
}
