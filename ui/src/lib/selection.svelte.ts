// The one selection every view shares: choosing a session or a place anywhere selects it
// everywhere (the tree highlights the session, the findings list the place, the inspector shows
// the place's raw line).

import type { Place } from "./report";

export class Selection {
  session = $state<string | null>(null);
  place = $state<Place | null>(null);

  /** Selects a session and, when given, a place in the log (a finding's place, a run's start). */
  select(session: string | null, place: Place | null = null): void {
    this.session = session;
    this.place = place;
  }

  clear(): void {
    this.session = null;
    this.place = null;
  }
}
