// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The entry point of the classic-script browser bundle (`dist/browser/taskpack.iife.js`): the
 * pure core, exposed as `globalThis.taskpack` for pages that cannot load modules (a page
 * opened from `file://`).
 *
 * @module
 */
import * as taskpack from "../mod.ts";

(globalThis as { taskpack?: typeof taskpack }).taskpack = taskpack;
