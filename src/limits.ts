/** Request limits the service enforces at its edge (src/http/) and announces in /config. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Deepest nesting of arrays and objects a body may have; the interface's own bodies need five levels at most. */
export const MAX_BODY_DEPTH = 32;
