// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The entry point of the checks' classic-script bundle: sets `globalThis.taskpackChecks` for
 * the test page opened from `file://` (`iife.html`).
 *
 * @module
 */
import { runChecks } from "./checks.ts";

(globalThis as { taskpackChecks?: unknown }).taskpackChecks = { runChecks };
