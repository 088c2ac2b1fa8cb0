// date-holidays ships its calendar data as `date-holidays/data` without types: the part
// src/domain/holidays.ts reads (which country has which zones).
declare module 'date-holidays/data' {
  export const data: { holidays: Record<string, { zones?: string[] }> };
}
