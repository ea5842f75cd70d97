/**
 * Calls made in the same turn of the event loop, run as one: each `add` waits for the statement of its
 * group (run with every item added before the next turn, at most `max` at a time). Many jobs in flight
 * that each need the same small statement (a notification delivery beginning or ending) then cost the
 * database one round trip and one commit together instead of one each.
 *
 * `run` gets the items in the order they were added and returns one result per item, in that order.
 * If it throws, every call of the group rejects with that error (as each would have alone).
 */
export class Coalescer<I, O> {
  #items: I[] = [];
  #waiters: Array<{ resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  #scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly max = 100,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#items.push(item);
      this.#waiters.push({ resolve, reject });
      if (this.#items.length >= this.max) this.#flush();
      else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#items.length === 0) return;
    const items = this.#items;
    const waiters = this.#waiters;
    this.#items = [];
    this.#waiters = [];
    this.run(items).then(
      (out) => {
        for (let i = 0; i < waiters.length; i++) waiters[i].resolve(out[i]);
      },
      (err) => {
        for (const w of waiters) w.reject(err);
      },
    );
  }
}
