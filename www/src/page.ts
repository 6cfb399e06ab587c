// The main page: <kraft-playground> driven by the URL, the URL kept in step with the run
// (a scenario link, or the seed and sizes of free play), and the on-ramp beside it: the
// course's stories as cards with the reader's progress. A visit without a link opens the
// next story of the course already playing (the first one, on a first visit); a link
// (`?scenario=`, `#run=`, any parameter) opens what it names, as before.
import { type ChangeDetail, defineElement, KraftPlayground, type StoryDetail } from 'kraft-playground/element';
import { takeEarlyCore } from './core.js';
import { Course } from './course.js';
import { applyParams, followFragment, fragmentRun } from './params.js';
import { Progress } from './progress.js';

const el = document.querySelector('kraft-playground') as KraftPlayground;
const fromLink = location.search.length > 1 || fragmentRun(location.hash) !== null;
const problems = applyParams(el, location.search, location.hash);
followFragment(el);
el.setAttribute('share-base', new URL('./', location.href).href);
const theme = el.getAttribute('theme');
if (theme) document.documentElement.dataset.theme = theme;

/** What a card or the free-play button starts: the attributes of a link to it, and nothing left over from the last run. */
const RUN_ATTRIBUTES = ['scenario', 'variant', 'run', 'seed', 'voters', 'observers', 'network'];
function start(scenario: string | null): void {
  for (const a of RUN_ATTRIBUTES) el.removeAttribute(a);
  if (scenario) el.setAttribute('scenario', scenario);
  el.setAttribute('autoplay', '');
}

const progress = new Progress();
const aside = document.querySelector('.site-course') as HTMLElement;
const course = new Course(aside, progress, {
  openStory: (id) => start(id),
  freePlay: () => start(null),
  folded: (on) => document.body.classList.toggle('course-folded', on),
});
// a story's completion card names the same next story as the tour
el.courseProgress = { completed: (id) => progress.state(id) === 'completed' };
aside.hidden = false;
aside.parentElement?.classList.add('has-course');
document.body.classList.add('has-course');

// no link: the next story of the course (or free play once all are completed), its part
// of the course open from the first paint
const onRamp = !fromLink;
if (onRamp) {
  const next = course.next();
  if (next) el.setAttribute('scenario', next);
  course.showCurrent(next);
}

/** The course's marks follow the run on screen after the frame that shows it (they wait for nothing). */
let courseShows: string | null = null;
let courseUpdate = 0;
function showInCourse(id: string | null): void {
  courseShows = id;
  if (courseUpdate) return;
  courseUpdate = requestAnimationFrame(() =>
    setTimeout(() => {
      courseUpdate = 0;
      course.showCurrent(courseShows);
      if (courseShows && progress.markSeen(courseShows)) course.refresh();
    }, 0),
  );
}

el.addEventListener('kraft-playground:change', (e) => {
  const d = (e as CustomEvent<ChangeDetail>).detail;
  showInCourse(d.scenario);
  // what the parameters cannot say (actions taken, a rule switched off, a setting changed): the run's own link
  if (!d.byParameters) {
    setAddress(() => el.shareUrl());
    return;
  }
  const url = new URL(location.href);
  url.search = '';
  url.hash = '';
  if (d.scenario) {
    url.searchParams.set('scenario', d.scenario);
    if (d.variant) url.searchParams.set('variant', d.variant);
    if (d.scenarioSeed !== null) url.searchParams.set('seed', String(d.scenarioSeed));
  } else {
    url.searchParams.set('seed', String(d.seed));
    url.searchParams.set('voters', String(d.voters));
    url.searchParams.set('observers', String(d.observers));
    if (d.network !== 'teaching') url.searchParams.set('network', d.network);
  }
  setAddress(() => url.href);
});

/**
 * The address follows the run on screen after the frame that shows it: replacing it (and
 * making a run's link) is not worth delaying that frame; of several changes in a frame,
 * the last one's address is made.
 */
let address: (() => string) | null = null;
function setAddress(href: () => string): void {
  if (address === null)
    requestAnimationFrame(() =>
      setTimeout(
        // a run's link is made once the element can make it (its link codec comes after its first frame)
        () =>
          void el.ready.then(() => {
            const next = address?.();
            address = null;
            if (next && next !== location.href) history.replaceState(null, '', next);
          }),
        0,
      ),
    );
  address = href;
}

// `?` opens the help from anywhere on the page (inside the element, its own keys do)
document.addEventListener('keydown', (e) => {
  if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
  const t = e.target as HTMLElement | null;
  if (t?.closest('kraft-playground') || (t && (t.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName)))) return;
  e.preventDefault();
  el.help();
});

// the skip link: past the element's controls to Free play in the tour
document.querySelector('.site-skip')?.addEventListener('click', (e) => {
  e.preventDefault();
  course.focusFreePlay();
});

el.addEventListener('kraft-playground:story', (e) => {
  const d = (e as CustomEvent<StoryDetail>).detail;
  if (d.complete && progress.markCompleted(d.scenario)) course.refresh();
});

takeEarlyCore(KraftPlayground);
defineElement();
for (const p of problems) el.addNotice(p);
// the on-ramp's story is already running when the reader arrives: played once it is on
// screen (its first change), not once the element is ready (its link codec comes later)
if (onRamp) el.addEventListener('kraft-playground:change', () => el.play(), { once: true });
