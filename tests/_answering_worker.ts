// Copyright 2026 the taskpack authors. MIT license.
// A worker module that answers on a broadcast channel for as long as it runs: a test asks
// whether a worker it cannot reach was stopped.
const channel = new BroadcastChannel("taskpack-test-worker");
channel.onmessage = () => channel.postMessage("still running");
(globalThis as unknown as { onmessage: () => void }).onmessage = () => {};
