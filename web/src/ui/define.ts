/**
 * Importing this module defines `<kraft-playground>`.
 * @module
 */
import { defineElement } from './index.js';

export * from './index.js';

defineElement();
