/**
 * The query of a session's last be-overview, carried over to its structure reads (be-read mode structure without
 * a query of its own): the agent asked where something is, and the outlines of the files it then opens answer the
 * same question first. An overview without a query ends it; so does `query: ""` on the read.
 */
const KEPT_SESSIONS = 256;

export class SessionQueries {
  private readonly bySession = new Map<string, string>();

  set(sessionId: string, query: string | undefined): void {
    this.bySession.delete(sessionId);
    const q = query?.trim();
    if (!q) return;
    this.bySession.set(sessionId, q);
    while (this.bySession.size > KEPT_SESSIONS) this.bySession.delete(this.bySession.keys().next().value!);
  }

  get(sessionId: string): string | undefined {
    return this.bySession.get(sessionId);
  }
}

/** One per composed context service (a server's sessions share it, as they share the service). */
const perService = new WeakMap<object, SessionQueries>();

export function sessionQueries(service: object): SessionQueries {
  let q = perService.get(service);
  if (!q) perService.set(service, (q = new SessionQueries()));
  return q;
}
