export const MAX_BODY_BYTES = 64 * 1024;
