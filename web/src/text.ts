// The page's text in the reader's language, chosen as the widgets choose theirs (the package's
// `localised`, which follows <html lang>).
import { localised } from 'sampling-lab/element';
import { en } from './languages/en';
import { zh, type PageStrings } from './languages/zh';

export type { DraftKind } from './languages/zh';

export function pageText(): PageStrings {
  return localised({ zh, en });
}

export const realModelText = (): PageStrings['realModel'] => pageText().realModel;
