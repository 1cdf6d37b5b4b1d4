/** Injected time source: the core never reads the wall clock itself. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** RFC 3339 UTC with `Z`, as the reference writes timestamps. */
export function rfc3339(date: Date): string {
  return date.toISOString();
}
