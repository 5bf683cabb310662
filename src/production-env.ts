// Imported first by every entry point, before Elysia loads: Elysia decides at import time whether it runs
// in production. In development mode it pretty-prints every rejected body into its validation errors, which
// takes seconds (and can run out of memory) on a deeply nested 60 KiB JSON body.
process.env.NODE_ENV = "production";
