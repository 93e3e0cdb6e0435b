/** Request counters per route (method and registered pattern), by answered status. */
export interface RouteCount {
  method: string;
  route: string;
  count: number;
  /** Status code (or `dropped`) → requests. */
  statuses: Record<string, number>;
}

export class RequestCounters {
  private readonly counts = new Map<string, RouteCount>();

  record(method: string, route: string, status: number | "dropped"): void {
    const key = `${method} ${route}`;
    let c = this.counts.get(key);
    if (c === undefined) this.counts.set(key, (c = { method, route, count: 0, statuses: {} }));
    c.count += 1;
    c.statuses[String(status)] = (c.statuses[String(status)] ?? 0) + 1;
  }

  list(): RouteCount[] {
    return [...this.counts.values()]
      .map((c) => ({ ...c, statuses: { ...c.statuses } }))
      .sort((a, b) => a.route.localeCompare(b.route) || a.method.localeCompare(b.method));
  }

  clear(): void {
    this.counts.clear();
  }
}
