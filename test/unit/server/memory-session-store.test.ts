import { createMemorySessionStore } from '../../../server/sessions/memory-session-store.js';
import { sessionStoreSuite } from '../../helpers/session-store-suite.js';

sessionStoreSuite('memory', async (now) => createMemorySessionStore({ now }));
