// Copyright 2026 the taskpack authors. MIT license.
// A worker module that fails as it starts: the batch workers must cope (deflate here instead,
// or report it), never hang.
throw new Error("this worker fails on purpose");
