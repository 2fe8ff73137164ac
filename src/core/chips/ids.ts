/** A chip id, as newShortId (util/ids.ts) makes them: 6 hex, or 12 after repeated collisions. */
export const CHIP_ID_PATTERN = /^(?:[0-9a-f]{6}|[0-9a-f]{12})$/;
