// Each experiment's widget; aliases are the handbook's existing widget names.
import { filtersWidget, temperatureWidget } from './filters.js';
import { importanceWidget } from './importance.js';
import { evalErrorWidget, mcErrorWidget } from './mc-error.js';
import { sampleSizeWidget } from './sample-size.js';
import { samplersWidget } from './samplers.js';
import { sequenceWidget } from './sequence.js';
import { speculativeWidget } from './speculative.js';
import type { WidgetFactory } from './types.js';

export const WIDGETS: Record<string, WidgetFactory> = {
  filters: filtersWidget,
  temperature: temperatureWidget,
  samplers: samplersWidget,
  'mc-error': mcErrorWidget,
  'eval-error': evalErrorWidget,
  sequence: sequenceWidget,
  speculative: speculativeWidget,
  importance: importanceWidget,
  'sample-size': sampleSizeWidget,
};

/** Names the handbook's placeholders use for the same widgets. */
export const WIDGET_ALIASES: Record<string, string> = {
  softmax: 'filters',
};
