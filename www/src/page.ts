// The main page: <kraft-playground> driven by the URL, and the URL kept in step with
// the run (a scenario link, or the seed and sizes of free play).
import { type ChangeDetail, defineElement, type KraftPlayground } from 'kraft-playground/element';
import { applyParams, followFragment } from './params.js';

const el = document.querySelector('kraft-playground') as KraftPlayground;
const problems = applyParams(el, location.search, location.hash);
followFragment(el);
el.setAttribute('share-base', new URL('./', location.href).href);

el.addEventListener('kraft-playground:change', (e) => {
  const d = (e as CustomEvent<ChangeDetail>).detail;
  if (d.actions > 0) return; // a run in progress: the share button makes its link
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
  if (url.href !== location.href) history.replaceState(null, '', url.href);
});

defineElement();
for (const p of problems) el.addNotice(p);
