import { defineResource } from '../registry';
import * as getNavigationUrl from './getNavigationUrl.operation';

export const flow = defineResource({ name: 'Flow', value: 'flow' }, { getNavigationUrl });
