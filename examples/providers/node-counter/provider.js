#!/usr/bin/env node
// A stateful counter: a pier resource provider in Node.js, no npm packages.
//
// Resource type "counter" shows update semantics. Create starts the count at
// inputs.start (default 0); every update adds inputs.step (default 1) to the
// count that pier recorded in state and passes back in the request. The
// provider itself keeps nothing: state lives in pier's state log.
'use strict';

const readline = require('node:readline');

const KNOWN_INPUTS = new Set(['name', 'start', 'step']);

class ProviderError extends Error {}

// stdout carries protocol frames only; logs go to stderr.
function log(msg) {
  process.stderr.write(`node-counter: ${msg}\n`);
}

function checkType(type) {
  if (type !== 'counter') {
    throw new ProviderError(`unknown resource type "${type}" (this provider supports: counter)`);
  }
}

function parseInputs(props) {
  if (props === null || typeof props !== 'object' || Array.isArray(props)) {
    throw new ProviderError('inputProperties must be an object');
  }
  const unknown = Object.keys(props).filter((k) => !KNOWN_INPUTS.has(k)).sort();
  if (unknown.length > 0) {
    throw new ProviderError(`unknown input field(s) ${unknown.join(', ')} (known: name, start, step)`);
  }
  if (typeof props.name !== 'string' || props.name === '') {
    throw new ProviderError('input "name" must be a non-empty string');
  }
  const start = props.start ?? 0;
  const step = props.step ?? 1;
  if (!Number.isInteger(start) || !Number.isInteger(step)) {
    throw new ProviderError('inputs "start" and "step" must be integers');
  }
  return { name: props.name, start, step };
}

const handlers = {
  createResourceRequest(req) {
    checkType(req.type);
    if (req.isStateful !== true) {
      // A counter without recorded state would restart at "start" on every
      // apply; refuse rather than pretend to count.
      throw new ProviderError('resource type "counter" requires state: give the resource a state handler');
    }
    const inputs = parseInputs(req.inputProperties);
    log(`created ${inputs.name} at ${inputs.start}`);
    return { createResourceResponse: { outputProperties: { count: inputs.start } } };
  },
  updateResourceRequest(req) {
    checkType(req.resource.type);
    const inputs = parseInputs(req.inputProperties);
    const previous = (req.resource.outputProperties || {}).count;
    if (!Number.isInteger(previous)) {
      throw new ProviderError('recorded output "count" is missing: the state does not come from this provider');
    }
    const count = previous + inputs.step;
    log(`updated ${inputs.name} from ${previous} to ${count}`);
    return { updateResourceResponse: { outputProperties: { count } } };
  },
};

function handle(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    throw new ProviderError(`request is not JSON: ${e.message}`);
  }
  if (msg === null || typeof msg !== 'object' || Object.keys(msg).length !== 1) {
    throw new ProviderError('request must be an object with exactly one key');
  }
  const [kind] = Object.keys(msg);
  const handler = handlers[kind];
  if (!handler) {
    throw new ProviderError(`unsupported request "${kind}"`);
  }
  try {
    return handler(msg[kind]);
  } catch (e) {
    if (e instanceof ProviderError) throw e;
    throw new ProviderError(`malformed ${kind}: ${e.message}`);
  }
}

// Requests are handled one at a time, in order; readline closes when stdin
// does, and then the process exits on its own.
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', (line) => {
  if (line.trim() === '') return;
  let resp;
  try {
    resp = handle(line);
  } catch (e) {
    resp = { errorResponse: { message: e.message } };
  }
  process.stdout.write(`${JSON.stringify(resp)}\n`);
});
