/// <reference types="node" />
// The widget mirrors the wire types as plain types (no zod in the bundle). These assignments
// fail to typecheck when the contract drifts from what the widget reads.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { TBehaviorRule, TWidgetInitRequest, TWidgetInitResponse } from '@service/contract';
import type { TCitation, TInit, TInitRequest, TRule, TTheme } from './types.js';

const fromContract = (value: TWidgetInitResponse): TInit => value;
const rule = (value: TBehaviorRule): TRule => value;
const theme = (value: TWidgetInitResponse['agent']['theme']): TTheme => value;
const citation = (value: TWidgetInitResponse['messages'][number]['citations'][number]): TCitation => value;
const initRequest = (value: TInitRequest): TWidgetInitRequest => value;

it('the widget types accept what the contract describes', () => {
  assert.equal([fromContract, rule, theme, citation, initRequest].length, 5);
});
