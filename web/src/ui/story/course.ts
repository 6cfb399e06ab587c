// The guided path through the scenario library: the stories in the order a reader who
// knows Raft but not KRaft should meet them, in four parts, each story with a short name
// and one line. This is the one place the order lives: the site's on-ramp cards and the
// element's compact picker both read it, and web/test/course.test.mjs checks that every
// file in scenarios/ is placed exactly once.

export interface CourseStory {
  /** The scenario id (its file name in scenarios/). */
  id: string;
  /** A short name for a card or a menu. */
  name: string;
  /** What the story shows, in one line. */
  line: string;
}

export interface CoursePart {
  id: string;
  title: string;
  /** What the part covers, in a few words. */
  about: string;
  stories: CourseStory[];
}

export const COURSE: CoursePart[] = [
  {
    id: 'basics',
    title: 'Basics',
    about: 'election, replication and the HW, failover',
    stories: [
      { id: 'first-election', name: 'First election', line: 'A pre-vote, a vote, BeginQuorumEpoch: how a leader of epoch 1 is born.' },
      { id: 'metadata-state-machine', name: 'The metadata log', line: 'Records commit at the high watermark; every node applies them to the same metadata.' },
      { id: 'leader-crash-failover', name: 'Leader crash', line: 'Followers notice by their fetch timeout, then elect a leader in a higher epoch.' },
    ],
  },
  {
    id: 'failures',
    title: 'Failures',
    about: 'partitions, divergence and truncation, snapshots, lossy links',
    stories: [
      { id: 'minority-partition', name: 'Minority partition', line: 'A leader on the small side cannot commit; its uncommitted tail is truncated.' },
      { id: 'partitioned-leader', name: 'Partitioned leader', line: 'Cut off from every voter, the old leader resigns by check-quorum.' },
      { id: 'diverging-follower', name: 'Diverging follower', line: 'divergingEpoch answers walk a stale log back, one Fetch round at a time.' },
      { id: 'late-observer-snapshot', name: 'Late observer', line: 'A new broker downloads a snapshot with FetchSnapshot, then fetches the rest.' },
      { id: 'lossy-network', name: 'Lossy network', line: 'One message in five lost: leaders change, nothing committed is lost.' },
    ],
  },
  {
    id: 'safety',
    title: 'Safety',
    about: 'figure 8, restart as Resigned, unflushed data',
    stories: [
      { id: 'figure-8', name: 'Figure 8', line: 'Why a leader commits only through a record of its own epoch.' },
      { id: 'leader-restart-resigned', name: 'Restart as Resigned', line: 'A leader that lost its unflushed tail never leads that epoch again.' },
      { id: 'unflushed-data-loss', name: 'Flush before fetch', line: 'A follower flushes before its next Fetch, so the HW counts only what is on disk.' },
      { id: 'one-voter-flush-window', name: 'One voter', line: "With a single voter the HW moves before the flush: Kafka's own window." },
      { id: 'all-nodes-restart', name: 'All nodes restart', line: 'Every controller loses power; what each flushed brings the quorum back whole.' },
    ],
  },
  {
    id: 'kraft',
    title: "KRaft's own",
    about: 'pre-vote, check-quorum, observers, graceful resign, changing the controllers',
    stories: [
      { id: 'disruptive-rejoin', name: 'Disruptive rejoin', line: 'Pre-vote keeps a rejoining voter from unseating a healthy leader.' },
      { id: 'ping-pong-partial-partition', name: 'Partial partition', line: 'Pre-vote and check-quorum stop leadership bouncing between nodes.' },
      { id: 'observer-rides-out-leader-crash', name: 'Observer and a crash', line: 'An observer has no fetch timeout: it finds the new leader by fetching.' },
      { id: 'graceful-resign-vs-crash', name: 'Resign or crash', line: 'EndQuorumEpoch names successors: failover in round trips, not seconds.' },
      { id: 'resign-five-voters-prevote', name: 'Resign with five voters', line: "The successor's first pre-vote fails: two grants of five are not a majority." },
      { id: 'split-vote', name: 'Split vote', line: 'Candidates split the votes; random timeouts break the tie.' },
      { id: 'grow-three-to-five', name: 'Add controllers', line: 'KIP-853: add-controller grows a dynamic quorum from three voters to five.' },
      { id: 'remove-leader', name: 'Remove the leader', line: 'The leader removes itself: it leads without counting itself, then resigns on commit.' },
      { id: 'replace-failed-disk', name: 'Replace a failed disk', line: 'A new disk is a new replica key: remove the old voter, add the node back.' },
      { id: 'one-to-two-voters', name: 'One voter to two', line: 'A lagging second voter stalls the HW: a majority of two is both (KAFKA-19933).' },
      { id: 'auto-join', name: 'Controllers auto-join', line: 'KIP-1186: observer controllers add themselves, one change at a time.' },
      { id: 'one-change-at-a-time', name: 'One change at a time', line: 'Why a second voter change waits: two at once let two leaders commit.' },
    ],
  },
];

/** Every story of the course, in order. */
export function courseStories(): CourseStory[] {
  return COURSE.flatMap((p) => p.stories);
}

/** The part and the story of `id`, if the course has it. */
export function courseStory(id: string): { part: CoursePart; story: CourseStory; index: number } | null {
  let index = 0;
  for (const part of COURSE) {
    for (const story of part.stories) {
      if (story.id === id) return { part, story, index };
      index++;
    }
  }
  return null;
}

/** What a page tells the element of the reader's progress (the site's tour, `el.courseProgress`): a story's card then names the same next story as the tour. */
export interface CourseProgress {
  completed(id: string): boolean;
}

/**
 * The story to read after `id` (null: at the start of the tour): the first one after it
 * in the course's order that is not completed, else the first not completed before it;
 * null when all are. The site's tour and a story's completion card both ask this, so
 * they agree on what is next.
 */
export function nextInCourse(id: string | null, completed: (id: string) => boolean): string | null {
  const all = courseStories();
  const at = id === null ? -1 : all.findIndex((s) => s.id === id);
  const order = [...all.slice(at + 1), ...all.slice(0, Math.max(0, at))];
  return order.find((s) => !completed(s.id))?.id ?? null;
}
