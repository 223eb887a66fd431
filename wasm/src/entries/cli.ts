#!/usr/bin/env node
// The `sampling-lab` command (cli/main.ts).
import '../cli/main.js';
