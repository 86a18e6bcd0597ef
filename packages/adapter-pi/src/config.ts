import { adapterConfig } from '@toolbridge/adapter-kit';

export const TOOL_ID = 'pi';
export const NAME = 'Pi';

export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

/** The config keys Pi owns: `piModel`, `piThinking`. */
export const piConfig = adapterConfig(TOOL_ID, {
  model: {
    type: 'string',
    minLength: 1,
    description: 'Model for Pi as `provider/id` (`pi --model`); else the default of your Pi settings, else the first model Pi lists.',
  },
  thinking: { type: 'string', enum: THINKING_LEVELS, description: 'Thinking level (`pi --thinking`); Pi’s own default when unset.' },
});
