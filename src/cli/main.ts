#!/usr/bin/env node
console.log('panoptes');
