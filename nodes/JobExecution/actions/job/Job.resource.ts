import { defineResource } from '../registry';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as submit from './submit.operation';
import * as waitForCompletion from './waitForCompletion.operation';

/** Submit first: it is the editor's default, and the fields follow this order. */
export const job = defineResource({ name: 'Job', value: 'job' }, { submit, get, getMany, waitForCompletion });
