/**
 * The dashboard's entry (index.html's one module script): the styles, then the shell
 * (shell.tsx; routes in routes.tsx, the session in use-session.ts) mounted on #app.
 */
import { render } from 'preact';
import { App } from './shell';
import 'uplot/dist/uPlot.min.css';
import './styles.css';

render(<App />, document.getElementById('app')!);
