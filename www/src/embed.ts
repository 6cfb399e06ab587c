// The iframe page: the same options as URL parameters; minimal controls unless
// controls=full. Share links open the main page.
import { defineElement, KraftPlayground } from 'kraft-playground/element';
import { takeEarlyCore } from './core.js';
import { applyParams, followFragment } from './params.js';

const el = document.querySelector('kraft-playground') as KraftPlayground;
el.setAttribute('controls', 'minimal');
const problems = applyParams(el, location.search, location.hash);
followFragment(el);
el.setAttribute('share-base', new URL('./index.html', location.href).href);
takeEarlyCore(KraftPlayground);
defineElement();
for (const p of problems) el.addNotice(p);
