// A list under a key (lib/pages.ts `KeyedRows`) as a view draws it: its total, whether its first
// rows came, and its rows, as reactive state. The findings list and the usage table share it.
import { KeyedRows, type FetchRows } from "./pages";

export class KeyedList<T> {
  total = $state(0);
  /** The window's rows of the list shown have come (a new key starts without them). */
  answered = $state(false);
  private version = $state(0);
  private rows: KeyedRows<T>;

  /** `drawn` is called the frame after each revision's first rows are held. */
  constructor(drawn: () => void) {
    this.rows = new KeyedRows<T>(
      (n) => {
        this.total = n;
        this.version++;
      },
      () => (this.answered = true),
      drawn,
    );
  }

  /** Shows the list of `key` at `revision` (call it untracked); with `at`, opened there
   * (`KeyedRows.show`). */
  show(key: string, revision: number, fetch: FetchRows<T>, at?: { first: number; last: number; total: number }): void {
    if (this.rows.show(key, revision, fetch, at) === "new") this.answered = false;
  }

  ensure(revision: number, first: number, last: number): void {
    this.rows.ensure(revision, first, last);
  }

  /** Row `i` when held (read in a template, it redraws when rows come). */
  held = (i: number): T | undefined => {
    void this.version;
    return this.rows.get(i);
  };
}
