/** Random per process, so that ids minted by several processes never meet. */
const EVENT_ID_PREFIX = globalThis.crypto.randomUUID().slice(0, 8);
let eventCount = 0;

/** The event with an id (see SubscriptionEvent.id), given one if it had none. */
export function withEventId<T extends { id?: string }>(event: T): T {
  if (event.id !== undefined) return event;
  eventCount += 1;
  return { ...event, id: `${EVENT_ID_PREFIX}.${eventCount}` };
}
