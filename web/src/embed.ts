// web/dist/embed.js: the handbook drop-in. One <script type="module" src="…/embed.js"> on a
// page upgrades its .aig-widget placeholders; the script fetches its WebAssembly and Worker
// from the assets/ folder beside it.
import 'sampling-lab/embed';
