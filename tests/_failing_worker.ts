// Copyright 2026 the taskpack authors. MIT license.
// A worker module that fails as it starts: the batch deflater must then deflate on its own.
throw new Error("this worker fails on purpose");
