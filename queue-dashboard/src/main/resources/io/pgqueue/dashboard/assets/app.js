/*
 * The pgqueue dashboard: one page, plain JavaScript, no build step and no third-party code. It reads the
 * JSON under <base>/api and posts actions there with the CSRF token of its <meta> tags. Everything a row
 * says is put into the page as text (textContent), never as markup.
 */
(function () {
    'use strict';

    const meta = (name) => document.querySelector('meta[name="pgqueue-' + name + '"]').content;
    const BASE = meta('base');
    const REFRESH = Math.max(200, Number(meta('refresh')) || 2000);
    const WRITABLE = meta('writable') === 'true';
    const REFUSAL = meta('refusal');
    const USER = meta('user');
    const CSRF_HEADER = meta('csrf-header');
    const CSRF_TOKEN = meta('csrf-token');
    const LIVE_STATES = ['waiting', 'scheduled', 'ready', 'running', 'dead'];
    const WORKFLOW_STATES = ['running', 'failed', 'completed', 'cancelled'];
    const BATCH_STATES = ['open', 'running', 'succeeded', 'failed', 'cancelled'];
    const ALL_STATES = LIVE_STATES.concat(['completed', 'cancelled']);
    const main = document.getElementById('main');

    let timer = null;
    let generation = 0;

    // ---- DOM and HTTP helpers ------------------------------------------------------------------------

    function el(tag, attributes, ...children) {
        const node = document.createElement(tag);
        for (const [key, value] of Object.entries(attributes || {})) {
            if (value === null || value === undefined || value === false) {
                continue;
            }
            if (key === 'text') {
                node.textContent = value;
            } else if (key === 'style') {
                // through the CSSOM: the Content-Security-Policy allows no inline style attributes
                node.style.cssText = value;
            } else if (key.startsWith('on')) {
                node.addEventListener(key.substring(2), value);
            } else {
                node.setAttribute(key, value === true ? '' : value);
            }
        }
        for (const child of children.flat()) {
            if (child !== null && child !== undefined && child !== false) {
                node.append(child instanceof Node ? child : document.createTextNode(String(child)));
            }
        }
        return node;
    }

    /** Shows a page: its parts in order, the absent ones (null) left out rather than written as "null". */
    function render(...children) {
        main.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
    }

    function svg(tag, attributes) {
        const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
        for (const [key, value] of Object.entries(attributes || {})) {
            node.setAttribute(key, value);
        }
        return node;
    }

    async function failure(response) {
        try {
            const body = await response.json();
            return new Error(body.error || body.message || (response.status + ' ' + response.statusText));
        } catch (ignored) {
            return new Error(response.status + ' ' + response.statusText);
        }
    }

    async function get(path) {
        const response = await fetch(BASE + '/api' + path, {
            headers: { Accept: 'application/json' }, credentials: 'same-origin'
        });
        if (!response.ok) {
            throw await failure(response);
        }
        return response.json();
    }

    async function post(path, body) {
        const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
        if (CSRF_HEADER) {
            headers[CSRF_HEADER] = CSRF_TOKEN;
        }
        const response = await fetch(BASE + '/api' + path, {
            method: 'POST', headers: headers, credentials: 'same-origin', body: JSON.stringify(body || {})
        });
        if (!response.ok) {
            throw await failure(response);
        }
        return response.json();
    }

    function flash(message, kind) {
        const box = document.getElementById('flash');
        box.textContent = message;
        box.className = 'flash ' + (kind || 'ok');
        box.hidden = false;
    }

    /** A button for an action, only where this user may act; runs it, says what it did, then refreshes. */
    function actionButton(label, attributes, run, confirmText) {
        if (!WRITABLE) {
            return null;
        }
        return el('button', Object.assign({
            type: 'button',
            onclick: async (event) => {
                if (confirmText && !window.confirm(confirmText)) {
                    return;
                }
                event.target.disabled = true;
                try {
                    const result = await run();
                    const what = result.result ? ' (' + result.result.replace('_', ' ') + ')' : '';
                    flash(label + ': ' + result.affected + ' changed' + what + ' — ' + result.target, 'ok');
                } catch (error) {
                    flash(label + ' refused: ' + error.message, 'error');
                } finally {
                    event.target.disabled = false;
                    route();
                }
            }
        }, attributes), label);
    }

    // ---- formatting -----------------------------------------------------------------------------------

    const number = new Intl.NumberFormat('en-US');
    const rate = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

    function count(value) {
        return (value === null || value === undefined) ? '–' : number.format(value);
    }

    function perMinute(value) {
        return (value === null || value === undefined) ? '–' : rate.format(value);
    }

    function seconds(value) {
        if (value === null || value === undefined) {
            return '–';
        }
        if (value < 1) {
            return Math.round(value * 1000) + ' ms';
        }
        return duration(value * 1000);
    }

    function duration(millis) {
        const s = Math.abs(millis) / 1000;
        if (s < 60) {
            return rate.format(s) + ' s';
        }
        if (s < 3600) {
            return Math.floor(s / 60) + ' min ' + Math.round(s % 60) + ' s';
        }
        if (s < 86400) {
            return Math.floor(s / 3600) + ' h ' + Math.round((s % 3600) / 60) + ' min';
        }
        return Math.floor(s / 86400) + ' d ' + Math.round((s % 86400) / 3600) + ' h';
    }

    function when(iso) {
        if (!iso) {
            return el('span', { class: 'muted', text: '–' });
        }
        const millis = new Date(iso).getTime() - Date.now();
        const text = Math.abs(millis) < 1000 ? 'now' : (millis < 0 ? duration(millis) + ' ago' : 'in ' + duration(millis));
        return el('span', { title: iso, text: text });
    }

    function badge(state) {
        return el('span', { class: 'badge ' + state, 'data-badge': state, text: state });
    }

    // ---- charts ---------------------------------------------------------------------------------------

    function lineChart(points, width, height, cssClass) {
        const chart = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, preserveAspectRatio: 'none', class: cssClass });
        if (points.length < 2) {
            return chart;
        }
        const max = Math.max(1, ...points.map((p) => Math.max(p.completedPerMinute, p.failedPerMinute)));
        const step = width / (points.length - 1);
        const line = (key, color) => svg('polyline', {
            fill: 'none', stroke: color, 'stroke-width': cssClass === 'spark' ? 1.5 : 2, 'vector-effect': 'non-scaling-stroke',
            points: points.map((p, i) => (i * step).toFixed(1) + ',' + (height - 2 - (p[key] / max) * (height - 4)).toFixed(1)).join(' ')
        });
        chart.append(line('completedPerMinute', '#336791'), line('failedPerMinute', '#c62828'));
        return chart;
    }

    // ---- pages ----------------------------------------------------------------------------------------

    /** Every queue at a glance; its numbers are updated in place, so buttons stay where they are. */
    function overviewPage(state) {
        const cards = el('div', { class: 'cards' });
        const chartBox = el('div');
        const caption = el('span', { class: 'muted' });
        const body = el('tbody');
        // in the page's column, not the header's: the banner's own margins are for the top of the page
        const vacuumHold = el('div', { class: 'banner', id: 'vacuum-hold', role: 'alert', style: 'margin: 0 0 12px' });
        vacuumHold.hidden = true;
        // several databases: each one's state, and a column naming each queue's
        const databases = el('div', { class: 'cards', id: 'databases' });
        databases.hidden = true;
        const databaseHeader = el('th', { text: 'Database', 'data-col': 'database' });
        databaseHeader.hidden = true;
        render(
            el('h1', {}, 'Overview'),
            vacuumHold,
            databases,
            cards,
            el('div', { class: 'panel' },
                el('div', { class: 'legend' }, el('span', {}, el('i', { style: 'background:#336791' }), 'completed / min'),
                    el('span', {}, el('i', { style: 'background:#c62828' }), 'failed attempts / min'), caption),
                chartBox),
            el('table', { id: 'queues' },
                el('thead', {}, el('tr', {},
                    el('th', { text: 'Queue' }), databaseHeader, ...LIVE_STATES.map((s) => el('th', { class: 'num', text: s })),
                    el('th', { class: 'num', text: 'Lag' }), el('th', { class: 'num', text: 'Completed / min' }),
                    el('th', { class: 'num', text: 'Failed / min' }), el('th', { text: 'Throughput' }),
                    el('th', { text: 'Listeners' }), el('th', { text: 'Status' }), el('th', { text: '' }))),
                body));
        const rows = new Map();
        return async function refresh() {
            const overview = await get('/overview');
            if (state.stale()) {
                return;
            }
            const c = overview.cluster;
            vacuumHold.textContent = overview.vacuumHold || '';
            vacuumHold.hidden = !overview.vacuumHold;
            const several = overview.databases.length > 0;
            databases.hidden = !several;
            databaseHeader.hidden = !several;
            databases.replaceChildren(...overview.databases.map((d) => card('database ' + d.name,
                (d.up ? 'up' : 'DOWN') + (d.replicaLagSeconds != null ? ', replica ' + seconds(d.replicaLagSeconds) + ' behind' : ''),
                'database-' + d.name)));
            overview.databases.filter((d) => !d.up).forEach((d) => {
                const value = databases.querySelector('#database-' + CSS.escape(d.name));
                value.classList.add('down');
                value.title = d.error || '';
            });
            const databaseOf = (queue) => {
                const listing = overview.databases.find((d) => d.queues.includes(queue));
                return listing ? listing.name : (several ? overview.databases[0].name : '');
            };
            cards.replaceChildren(
                ...LIVE_STATES.map((s) => card(s, count(c.jobs[s]), 'cluster-' + s)),
                card('completed / min', perMinute(c.completedPerMinute), 'cluster-completed-rate'),
                card('failed / min', perMinute(c.failedPerMinute), 'cluster-failed-rate'),
                card('oldest ready', seconds(c.lagSeconds), 'cluster-lag'),
                card('nodes', count(overview.nodes), 'cluster-nodes'));
            // rates are differences of samples taken while a page is open: until there are two, say so
            chartBox.replaceChildren(...(overview.rates.length < 2 ? [el('p', { class: 'muted chart-note',
                'data-chart-note': '', text: 'Collecting samples: completed and failed jobs per minute appear within seconds.' })]
                : []), lineChart(overview.rates, 800, 140, 'chart'));
            caption.textContent = overview.rates.length > 1 ? 'last ' + duration(
                new Date(overview.rates[overview.rates.length - 1].at) - new Date(overview.rates[0].at)) : 'collecting…';
            const seen = new Set();
            for (const queue of overview.queues) {
                seen.add(queue.name);
                let row = rows.get(queue.name);
                if (!row) {
                    row = queueRow(queue.name);
                    rows.set(queue.name, row);
                }
                row.update(queue, databaseOf(queue.name), several);
                body.append(row.tr);
            }
            for (const [name, row] of rows) {
                if (!seen.has(name)) {
                    row.tr.remove();
                    rows.delete(name);
                }
            }
            if (overview.queues.length === 0 && !body.querySelector('.empty')) {
                body.append(el('tr', { class: 'empty' }, el('td', { colspan: 13, class: 'muted', text: 'No queue has a job, a listener or a schedule yet.' })));
            } else if (overview.queues.length > 0) {
                body.querySelectorAll('.empty').forEach((e) => e.remove());
            }
        };
    }

    function card(label, value, id) {
        return el('div', { class: 'card' }, el('div', { class: 'label', text: label }),
            el('div', { class: 'value', id: id, text: value }));
    }

    function queueRow(name) {
        const cells = {};
        const cell = (key, cls) => (cells[key] = el('td', { class: cls, 'data-queue': name, 'data-col': key }));
        const status = el('td');
        const action = el('td');
        const tr = el('tr', { 'data-queue-row': name },
            el('td', {}, el('a', { href: '#/queues/' + encodeURIComponent(name), text: name })), cell('database'),
            ...LIVE_STATES.map((s) => cell(s, 'num')), cell('lag', 'num'), cell('completedPerMinute', 'num'),
            cell('failedPerMinute', 'num'), cell('spark'), cell('listeners'), status, action);
        let paused = null;
        return {
            tr: tr,
            update(queue, database, several) {
                cells.database.textContent = database;
                cells.database.hidden = !several;
                for (const s of LIVE_STATES) {
                    cells[s].textContent = count(queue.jobs[s]);
                }
                cells.dead.replaceChildren(queue.jobs.dead > 0
                    ? el('a', { href: '#/queues/' + encodeURIComponent(name) + '/dead', text: count(queue.jobs.dead) })
                    : count(0));
                cells.lag.textContent = seconds(queue.lagSeconds);
                cells.completedPerMinute.textContent = perMinute(queue.completedPerMinute);
                cells.failedPerMinute.textContent = perMinute(queue.failedPerMinute);
                cells.spark.replaceChildren(lineChart(queue.rates.slice(-60), 120, 26, 'spark'));
                const hosts = [...new Set(queue.listeners.map((l) => l.host + ' (' + l.pid + ')'))];
                // ready jobs and no node listening: usually a listener whose class is not a Spring bean
                const unattended = hosts.length === 0 && !queue.paused && queue.jobs.ready > 0;
                tr.classList.toggle('unattended', unattended);
                cells.listeners.replaceChildren(hosts.length > 0 ? hosts.join(', ') : unattended
                    ? el('span', { class: 'badge unattended', 'data-unattended': '', text: 'none: jobs wait',
                        title: 'No node listens to this queue. Is its @QueueListener method on a Spring bean (@Component)?' })
                    : 'none');
                cells.listeners.title = queue.listeners.map((l) => l.host + ' (' + l.pid + '): ' + l.container + ', '
                    + l.mode + ' × ' + l.concurrency + (l.running ? '' : ', stopped')).join('\n');
                if (paused !== queue.paused) {
                    paused = queue.paused;
                    status.replaceChildren(paused ? badge('paused') : el('span', { class: 'muted', text: 'active' }));
                    action.replaceChildren(pauseButton(name, paused) || '');
                }
            }
        };
    }

    function pauseButton(queue, paused) {
        const action = paused ? 'resume' : 'pause';
        return actionButton(paused ? 'Resume' : 'Pause', { 'data-action': action, 'data-queue': queue },
            () => post('/queues/' + encodeURIComponent(queue) + '/' + action));
    }

    function filterForm(params, fields, apply) {
        const inputs = {};
        const form = el('form', { class: 'filters', onsubmit: (event) => {
            event.preventDefault();
            const values = {};
            for (const [key, input] of Object.entries(inputs)) {
                let value = input.value.trim();
                if (value && input.type === 'datetime-local') {
                    value = new Date(value).toISOString();
                }
                if (value) {
                    values[key] = value;
                }
            }
            apply(values);
        } });
        for (const [key, label, type, options] of fields) {
            let input;
            if (options) {
                input = el('select', { name: key }, options.map(([value, text]) => el('option', { value: value, text: text })));
                input.value = params.get(key) || '';
            } else {
                input = el('input', { name: key, type: type || 'text', placeholder: type ? null : label });
                const value = params.get(key) || '';
                input.value = (type === 'datetime-local' && value) ? localInput(value) : value;
            }
            inputs[key] = input;
            form.append(el('label', {}, label, input));
        }
        form.append(el('button', { type: 'submit', class: 'primary', text: 'Apply' }),
            el('button', { type: 'button', text: 'Clear', onclick: () => apply({}) }));
        return form;
    }

    function localInput(iso) {
        const date = new Date(iso);
        return new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString().substring(0, 16);
    }

    const JOB_FILTERS = [
        ['groupKey', 'group key'], ['dedupKey', 'dedup key'], ['header', 'header name:value'],
        ['enqueuedAfter', 'enqueued after', 'datetime-local'], ['enqueuedBefore', 'enqueued before', 'datetime-local']
    ];

    /** A queue: its counts (refreshed), and a keyset-paged, filtered list of its jobs. */
    function queuePage(state, queue, params) {
        const header = el('h1', {}, 'Queue ', el('span', { text: queue }));
        const cards = el('div', { class: 'cards' });
        const keys = el('div');
        const list = el('div');
        const path = '#/queues/' + encodeURIComponent(queue);
        render(header, cards, keys,
            filterForm(params, [['state', 'state', null, [['', 'every live state']].concat(ALL_STATES.map((s) => [s, s]))]]
                .concat(JOB_FILTERS), (values) => navigate(path, values)),
            list);
        jobList(state, list, queue, params, path, false);
        let paused = null;
        const status = el('span');
        const pause = el('span');
        header.append(status, pause, el('a', { class: 'button', href: path + '/dead', text: 'Dead jobs' }));
        return async function refresh() {
            const stats = await get('/queues/' + encodeURIComponent(queue)).catch(() => null);
            if (state.stale() || !stats) {
                return;
            }
            cards.replaceChildren(...LIVE_STATES.map((s) => card(s, count(stats.jobs[s]), 'queue-' + s)),
                card('completed', count(stats.completed), 'queue-completed'),
                card('failed attempts', count(stats.failed), 'queue-failed'),
                card('oldest ready', seconds(stats.lagSeconds), 'queue-lag'));
            if (paused !== stats.paused) {
                paused = stats.paused;
                status.replaceChildren(paused ? badge('paused') : '');
                pause.replaceChildren(pauseButton(queue, paused) || '');
            }
            const fair = await get('/queues/' + encodeURIComponent(queue) + '/keys').catch(() => []);
            if (!state.stale()) {
                keys.replaceChildren(...fairnessKeys(queue, fair));
            }
        };
    }

    /** A fair queue's keys: status, weight, ready (bounded count), running, how long the next job waited. */
    function fairnessKeys(queue, keys) {
        if (!keys.length) {
            return [];
        }
        const rows = keys.map((k) => el('tr', { 'data-key': k.key },
            el('td', { text: k.key }),
            el('td', {}, k.status === 'active' ? el('span', { class: 'muted', text: 'active' }) : badge(k.status)),
            el('td', { text: String(k.weight) + (k.weightSetAtRunTime ? ' (set at run time)' : ' (configured)') }),
            el('td', { text: k.ready >= k.readyLimit ? count(k.readyLimit) + '+' : count(k.ready) }),
            el('td', { text: count(k.running) }),
            el('td', { text: k.waitingSeconds === null ? '–' : seconds(k.waitingSeconds) }),
            el('td', {}, actionButton(k.status === 'paused' ? 'Resume' : 'Pause',
                { 'data-action': k.status === 'paused' ? 'resume' : 'pause', 'data-key': k.key },
                () => post('/queues/' + encodeURIComponent(queue) + '/keys/' + encodeURIComponent(k.key) + '/'
                    + (k.status === 'paused' ? 'resume' : 'pause'))) || '')));
        return [el('h2', { text: 'Fairness keys' }),
            el('table', { id: 'fairness-keys' }, el('thead', {}, el('tr', {}, ['Key', 'Status', 'Weight', 'Ready', 'Running',
                'Next job waiting', ''].map((h) => el('th', { text: h })))), el('tbody', {}, rows))];
    }

    /** Dead jobs of a queue, selectable, with bulk retry and purge of the selection or of all that match. */
    function deadPage(state, queue, params) {
        const path = '#/queues/' + encodeURIComponent(queue) + '/dead';
        const list = el('div');
        render(
            el('h1', {}, 'Dead jobs of ', el('a', { href: '#/queues/' + encodeURIComponent(queue), text: queue })),
            filterForm(params, JOB_FILTERS, (values) => navigate(path, values)),
            list);
        jobList(state, list, queue, params, path, true);
        return null;
    }

    async function jobList(state, box, queue, params, path, dead) {
        const query = new URLSearchParams(params);
        if (dead) {
            query.set('state', 'dead');
        }
        query.set('limit', query.get('limit') || '50');
        let page;
        try {
            page = await get('/queues/' + encodeURIComponent(queue) + '/jobs?' + query);
        } catch (error) {
            box.replaceChildren(el('p', { class: 'flash error', text: error.message }));
            return;
        }
        if (state.stale()) {
            return;
        }
        const selected = new Set();
        const selectAll = el('input', { type: 'checkbox', title: 'select every job on this page', onchange: () => {
            box.querySelectorAll('input[data-select]').forEach((input) => {
                input.checked = selectAll.checked;
                input.dispatchEvent(new Event('change'));
            });
        } });
        const columns = [dead && WRITABLE ? el('th', {}, selectAll) : null, el('th', { text: 'Id' }),
            dead ? null : el('th', { text: 'State' }), el('th', { class: 'num', text: 'Attempts' }),
            el('th', { class: 'num', text: 'Priority' }), el('th', { text: dead ? 'Dead since' : 'Run at' }),
            el('th', { text: 'Enqueued' }), el('th', { text: 'Group' }), el('th', { text: 'Dedup key' }),
            el('th', { text: dead ? 'Error' : 'Progress' })];
        const rows = page.jobs.map((job) => el('tr', { 'data-job': job.id },
            dead && WRITABLE ? el('td', {}, el('input', { type: 'checkbox', 'data-select': job.id, onchange: (event) => {
                if (event.target.checked) {
                    selected.add(job.id);
                } else {
                    selected.delete(job.id);
                }
            } })) : null,
            el('td', {}, el('a', { href: '#/jobs/' + job.id, 'data-job-link': job.id, text: '#' + job.id })),
            dead ? null : el('td', {}, badge(job.state)),
            el('td', { class: 'num', text: job.attempts + (job.maxAttempts ? ' / ' + job.maxAttempts : '') }),
            el('td', { class: 'num', text: job.priority }),
            el('td', {}, when(job.finishedAt || job.runAt)), el('td', {}, when(job.enqueuedAt)),
            el('td', { text: job.groupKey || '' }), el('td', { text: job.dedupKey || '' }),
            dead ? el('td', { class: 'wrap', text: job.error || '' })
                : el('td', { text: job.progressPercent !== null ? job.progressPercent + ' %' : '' })));
        if (rows.length === 0) {
            rows.push(el('tr', {}, el('td', { colspan: 10, class: 'muted', text: dead ? 'No dead jobs match.' : 'No jobs match.' })));
        }
        const filter = Object.fromEntries([...params].filter(([key]) => key !== 'before' && key !== 'state'));
        const bulk = (action, label) => [
            actionButton(label + ' selected', { 'data-bulk': action + '-selected' }, () => {
                if (selected.size === 0) {
                    return Promise.reject(new Error('select jobs first'));
                }
                return post('/queues/' + encodeURIComponent(queue) + '/dead/' + action, { ids: [...selected], all: false });
            }, action === 'purge' ? 'Delete the selected dead jobs for good?' : null),
            actionButton(label + ' all matching', { 'data-bulk': action + '-all', class: action === 'purge' ? 'danger' : null },
                () => post('/queues/' + encodeURIComponent(queue) + '/dead/' + action, { all: true, filter: filter }),
                label + ' every dead job of ' + queue + ' matching this filter?')];
        const pager = el('div', { class: 'pager' });
        if (params.get('before')) {
            const newer = Object.fromEntries([...params].filter(([key]) => key !== 'before'));
            pager.append(el('a', { class: 'button', href: '#', text: '← Newest', onclick: (event) => {
                event.preventDefault();
                navigate(path, newer);
            } }));
        }
        if (page.nextCursor !== null) {
            pager.append(el('a', { class: 'button', href: '#', 'data-next': page.nextCursor, text: 'Older →', onclick: (event) => {
                event.preventDefault();
                navigate(path, Object.assign(Object.fromEntries(params), { before: page.nextCursor }));
            } }));
        }
        pager.append(el('button', { type: 'button', text: 'Refresh', onclick: () => route() }));
        box.replaceChildren(
            dead ? el('div', { class: 'actions' }, bulk('retry', 'Retry'), bulk('purge', 'Purge')) : '',
            el('table', { id: dead ? 'dead-jobs' : 'jobs' }, el('thead', {}, el('tr', {}, columns)), el('tbody', {}, rows)),
            pager);
    }

    /** One job, whole; refreshed while it lives (progress, attempts), re-drawn only when it changed. */
    function jobPage(state, id) {
        let last = null;
        return async function refresh() {
            let job;
            try {
                job = await get('/jobs/' + encodeURIComponent(id));
            } catch (error) {
                if (!state.stale()) {
                    render(el('h1', { text: 'Job #' + id }), el('p', { class: 'flash error', text: error.message }));
                }
                return;
            }
            const text = JSON.stringify(job);
            if (state.stale() || text === last) {
                return;
            }
            last = text;
            const queueLink = el('a', { href: '#/queues/' + encodeURIComponent(job.queue), text: job.queue });
            const workflowLink = job.workflowId !== null
                ? el('a', { href: '#/workflows/' + job.workflowId, 'data-workflow-link': job.workflowId, text: '#' + job.workflowId })
                : el('span', { class: 'muted', text: '–' });
            const batchLink = job.batchId !== null
                ? el('a', { href: '#/batches/' + job.batchId, 'data-batch-link': job.batchId, text: '#' + job.batchId })
                : el('span', { class: 'muted', text: '–' });
            const actions = el('div', { class: 'actions' },
                job.actions.includes('cancel') ? actionButton('Cancel', { 'data-action': 'cancel' },
                    () => post('/jobs/' + job.id + '/cancel'), 'Cancel job #' + job.id + '?') : null,
                job.actions.includes('retry') ? actionButton('Retry', { 'data-action': 'retry', class: 'primary' },
                    () => post('/jobs/' + job.id + '/retry')) : null,
                job.actions.includes('purge') ? actionButton('Delete', { 'data-action': 'purge', class: 'danger' },
                    () => post('/jobs/' + job.id + '/purge'), 'Delete job #' + job.id + ' for good?') : null,
                job.actions.includes('wake') ? actionButton('Wake', { 'data-action': 'wake' },
                    () => post('/jobs/' + job.id + '/wake'), 'End the wait of job #' + job.id + ' now?') : null);
            const waiting = job.waitingFor ? el('span', { id: 'waiting-for' },
                job.waitingFor.kind === 'sleep' ? 'sleep'
                    : job.waitingFor.kind === 'event' ? 'event ' + job.waitingFor.eventKey
                    : 'job #' + job.waitingFor.awaitedJobId,
                job.waitingFor.until ? el('span', { class: 'muted' }, ' until ', when(job.waitingFor.until)) : null)
                : el('span', { class: 'muted', text: '–' });
            const fields = [
                ['Queue', queueLink], ['Workflow', workflowLink], ['Batch', batchLink], ['State', el('span', {}, badge(job.state), job.cancelRequested ? ' cancellation requested' : '')],
                ['Attempts', job.attempts + (job.maxAttempts ? ' of ' + job.maxAttempts : '')], ['Priority', job.priority],
                ['Run at', when(job.runAt)], ['Enqueued', when(job.enqueuedAt)], ['Last attempt', when(job.attemptedAt)],
                ['Finished', when(job.finishedAt)], ['Lease owner', job.lockedBy || '–'], ['Lease until', when(job.leaseUntil)],
                ['Group key', job.groupKey || '–'], ['Dedup key', job.dedupKey || '–'],
                ['Timeout', job.timeoutMillis ? duration(job.timeoutMillis) : 'the listener\'s'],
                ['Payload type', job.payloadType || '–'], ['Waiting for', waiting]];
            const progress = job.progressPercent !== null ? el('div', {},
                el('span', { class: 'progress' }, el('span', { style: 'width:' + job.progressPercent + '%' })),
                ' ' + job.progressPercent + ' % ', el('span', { class: 'muted', text: job.progressMessage || '' })) : null;
            render(
                el('h1', {}, 'Job #' + job.id, badge(job.state)),
                actions,
                el('div', { class: 'grid2' },
                    el('div', { class: 'panel' }, el('dl', { class: 'fields' },
                        fields.flatMap(([name, value]) => [el('dt', { text: name }), el('dd', {}, value)])),
                        progress ? el('h2', { text: 'Progress' }) : null, progress),
                    el('div', {},
                        el('h2', { text: 'Payload' }), el('pre', { id: 'payload', text: pretty(job.payload) }),
                        Object.keys(job.headers).length ? el('h2', { text: 'Headers' }) : null,
                        Object.keys(job.headers).length ? el('table', {}, el('tbody', {}, Object.entries(job.headers).map(
                            ([name, value]) => el('tr', {}, el('td', { text: name }), el('td', { class: 'wrap', text: value }))))) : null,
                        job.output !== null ? el('h2', { text: 'Output' }) : null,
                        job.output !== null ? el('pre', { id: 'output', text: pretty(job.output) }) : null)),
                job.lastError !== null ? el('h2', { text: 'Last error' }) : null,
                job.lastError !== null ? el('pre', { id: 'last-error', text: job.lastError }) : null,
                job.masked ? el('p', { class: 'muted', text: 'Payload, output and error are masked: pgqueue.dashboard.show-payloads=true shows them.' }) : null,
                job.steps.length ? el('h2', { text: 'Steps' }) : null,
                job.steps.length ? el('table', { id: 'steps' }, el('thead', {}, el('tr', {}, el('th', { text: 'Step' }),
                    el('th', { text: 'Kind' }), el('th', { text: 'Done' }), el('th', { text: 'Result' }))),
                    el('tbody', {}, job.steps.map((step) => el('tr', {},
                        el('td', { text: step.name + (step.occurrence > 1 ? ' #' + step.occurrence : '') }),
                        el('td', { text: step.kind }), el('td', {}, when(step.finishedAt)),
                        el('td', { class: 'wrap' }, step.result !== null ? el('code', { text: step.result })
                            : el('span', { class: 'muted', text: job.masked ? 'masked' : '–' })))))) : null,
                el('h2', { text: 'History' }),
                el('table', { id: 'history' }, el('tbody', {}, job.history.map((event) =>
                    el('tr', {}, el('td', {}, when(event.at)), el('td', { class: 'muted', text: event.at }), el('td', { text: event.what }))))));
        };
    }

    function pretty(json) {
        if (json === null || json === undefined) {
            return '';
        }
        try {
            return JSON.stringify(JSON.parse(json), null, 2);
        } catch (ignored) {
            return json;
        }
    }

    function schedulesPage(state) {
        let last = null;
        return async function refresh() {
            const schedules = await get('/schedules');
            const text = JSON.stringify(schedules);
            if (state.stale() || text === last) {
                return;
            }
            last = text;
            const rows = schedules.map((s) => el('tr', { 'data-schedule': s.name },
                el('td', { text: s.name }), el('td', {}, el('a', { href: '#/queues/' + encodeURIComponent(s.queue), text: s.queue })),
                el('td', { text: s.every + (s.overridden ? ' (changed at run time)' : '') }), el('td', { text: s.zone }),
                el('td', {}, s.paused ? el('span', { class: 'muted', text: 'paused' }) : when(s.nextRunAt)),
                el('td', {}, when(s.lastRunAt)), el('td', {}, s.paused ? badge('paused') : el('span', { class: 'muted', text: 'active' })),
                el('td', {}, actionButton(s.paused ? 'Resume' : 'Pause', { 'data-action': s.paused ? 'resume' : 'pause' },
                    () => post('/schedules/' + encodeURIComponent(s.name) + '/' + (s.paused ? 'resume' : 'pause'))),
                ' ', actionButton('Trigger now', { 'data-action': 'trigger' },
                    () => post('/schedules/' + encodeURIComponent(s.name) + '/trigger')))));
            render(el('h1', { text: 'Schedules' }),
                el('table', { id: 'schedules' }, el('thead', {}, el('tr', {}, ['Name', 'Queue', 'Every', 'Zone', 'Next tick',
                    'Last tick', 'Status', ''].map((h) => el('th', { text: h })))),
                el('tbody', {}, rows.length ? rows : el('tr', {}, el('td', { colspan: 8, class: 'muted', text: 'No recurring jobs.' })))));
        };
    }

    // ---- workflows ------------------------------------------------------------------------------------

    function workflowsPage(state, params) {
        let last = null;
        return async function refresh() {
            const query = new URLSearchParams();
            ['name', 'state', 'before'].forEach((key) => params.get(key) && query.set(key, params.get(key)));
            const workflows = await get('/workflows' + (query.toString() ? '?' + query : ''));
            const text = JSON.stringify(workflows);
            if (state.stale() || text === last) {
                return;
            }
            last = text;
            const name = el('input', { name: 'name', placeholder: 'name', value: params.get('name') || '' });
            const states = el('select', { name: 'state' }, el('option', { value: '', text: 'any state' }),
                WORKFLOW_STATES.map((s) => el('option', { value: s, text: s, selected: params.get('state') === s })));
            const filter = el('form', { class: 'filters', onsubmit: (event) => {
                event.preventDefault();
                navigate('#/workflows', Object.fromEntries(Object.entries({ name: name.value, state: states.value }).filter(([, v]) => v)));
            } }, name, states, el('button', { type: 'submit', text: 'Filter' }));
            const rows = workflows.map((w) => el('tr', { 'data-workflow': w.id },
                el('td', {}, el('a', { href: '#/workflows/' + w.id, text: '#' + w.id })), el('td', { text: w.name }),
                el('td', {}, badge(w.state)), el('td', {}, progressBar(w.counts)),
                el('td', { class: 'num', text: count(w.counts.total) }), el('td', {}, when(w.createdAt))));
            const next = workflows.length === 50 ? el('a', { href: '#/workflows?' + new URLSearchParams(Object.assign(
                Object.fromEntries(query), { before: workflows[workflows.length - 1].id })), text: 'Older' }) : null;
            render(el('h1', { text: 'Workflows' }), filter,
                workflows.length ? el('table', { id: 'workflows' },
                    el('thead', {}, el('tr', {}, ['Id', 'Name', 'State', 'Progress', 'Nodes', 'Submitted'].map((h) => el('th', { text: h })))),
                    el('tbody', {}, rows)) : emptyList(query, 'workflow', 'No workflow yet: submit one with WorkflowOperations.submit',
                        'docs/workflows.md'),
                next);
        };
    }

    /**
     * What an empty list says: with a filter, that nothing matches it; without one, that there is none yet, and
     * where the guide is (a newcomer's first visit, not a failed search).
     */
    function emptyList(query, noun, none, guide) {
        const filtered = ['name', 'state', 'before'].some((key) => query.get(key));
        if (filtered) {
            return el('p', { class: 'muted', 'data-empty': 'filtered', text: 'No ' + noun + ' matches.' });
        }
        return el('p', { class: 'muted', 'data-empty': 'none' }, none + ' (the guide: ', el('code', { text: guide }), ' in pgqueue).');
    }

    // ---- batches --------------------------------------------------------------------------------------

    function batchesPage(state, params) {
        let last = null;
        return async function refresh() {
            const query = new URLSearchParams();
            ['name', 'state', 'before'].forEach((key) => params.get(key) && query.set(key, params.get(key)));
            const batches = await get('/batches' + (query.toString() ? '?' + query : ''));
            const text = JSON.stringify(batches);
            if (state.stale() || text === last) {
                return;
            }
            last = text;
            const name = el('input', { name: 'name', placeholder: 'name', value: params.get('name') || '' });
            const states = el('select', { name: 'state' }, el('option', { value: '', text: 'any state' }),
                BATCH_STATES.map((s) => el('option', { value: s, text: s, selected: params.get('state') === s })));
            const filter = el('form', { class: 'filters', onsubmit: (event) => {
                event.preventDefault();
                navigate('#/batches', Object.fromEntries(Object.entries({ name: name.value, state: states.value }).filter(([, v]) => v)));
            } }, name, states, el('button', { type: 'submit', text: 'Filter' }));
            const rows = batches.map((b) => el('tr', { 'data-batch': b.id },
                el('td', {}, el('a', { href: '#/batches/' + b.id, text: '#' + b.id })), el('td', { text: b.name }),
                el('td', {}, badge(b.state)), el('td', {}, progressBar(b.counts)),
                el('td', { class: 'num', text: count(b.counts.total) }), el('td', {}, when(b.createdAt))));
            const next = batches.length === 50 ? el('a', { href: '#/batches?' + new URLSearchParams(Object.assign(
                Object.fromEntries(query), { before: batches[batches.length - 1].id })), text: 'Older' }) : null;
            render(el('h1', { text: 'Batches' }), filter,
                batches.length ? el('table', { id: 'batches' },
                    el('thead', {}, el('tr', {}, ['Id', 'Name', 'State', 'Progress', 'Members', 'Opened'].map((h) => el('th', { text: h })))),
                    el('tbody', {}, rows)) : emptyList(query, 'batch', 'No batch yet: open one with BatchOperations.open',
                        'docs/batches.md'),
                next);
        };
    }

    function batchPage(state, id, params) {
        let last = null;
        return async function refresh() {
            const after = params.get('after') || '0';
            const detail = await get('/batches/' + encodeURIComponent(id) + '?after=' + encodeURIComponent(after));
            const text = JSON.stringify(detail);
            if (state.stale() || text === last) {
                return;
            }
            last = text;
            const b = detail.batch;
            const actions = el('div', { class: 'actions' }, b.actions.includes('cancel')
                ? actionButton('Cancel batch', { 'data-action': 'cancel-batch', class: 'danger' },
                    () => post('/batches/' + b.id + '/cancel'), 'Cancel every member of batch #' + b.id + ' that has not run?')
                : null);
            const counts = el('div', { class: 'cards' }, ['active', 'dead', 'completed', 'cancelled', 'total']
                .map((k) => el('div', { class: 'card', 'data-count': k }, el('div', { class: 'label', text: k }),
                    el('div', { class: 'value', text: count(b.counts[k]) }))));
            const done = b.counts.total ? Math.round(100 * (b.counts.completed + b.counts.dead + b.counts.cancelled) / b.counts.total) : 0;
            const properties = Object.entries(b.properties);
            const next = detail.next !== null
                ? el('a', { href: '#/batches/' + b.id + '?after=' + detail.next, text: 'Next members' }) : null;
            render(
                el('h1', {}, 'Batch #' + b.id + ' ', el('span', { class: 'muted', text: b.name }), ' ', badge(b.state)),
                actions, counts,
                el('p', { id: 'batch-progress' }, progressBar(b.counts), ' ' + done + ' % finished'),
                el('dl', { class: 'fields' }, [['Opened', when(b.createdAt)], ['Sealed', b.sealedAt ? when(b.sealedAt) : 'not yet: members may be added'],
                    ['Finished', when(b.finishedAt)]].flatMap(([k, v]) => [el('dt', { text: k }), el('dd', {}, v)])),
                el('h2', { text: 'Callbacks' }),
                b.callbacks.length ? el('table', { id: 'batch-callbacks' },
                    el('thead', {}, el('tr', {}, ['Event', 'Queue', 'State', 'Job', 'Fired'].map((h) => el('th', { text: h })))),
                    el('tbody', {}, b.callbacks.map((k) => el('tr', { 'data-callback': k.event },
                        el('td', { text: k.event }),
                        el('td', {}, el('a', { href: '#/queues/' + encodeURIComponent(k.queue), text: k.queue })),
                        el('td', {}, badge(k.state)),
                        el('td', {}, k.jobId !== null ? el('a', { href: '#/jobs/' + k.jobId, text: '#' + k.jobId }) : '–'),
                        el('td', {}, when(k.firedAt))))))
                    : el('p', { class: 'muted', text: 'No callbacks.' }),
                properties.length ? el('h2', { text: 'Properties' }) : null,
                properties.length ? el('dl', { class: 'fields' }, properties.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })])) : null,
                el('h2', { text: 'Live members' }),
                detail.members.length ? el('table', { id: 'batch-members' },
                    el('thead', {}, el('tr', {}, ['Job', 'Queue', 'State', 'Attempts', 'Error'].map((h) => el('th', { text: h })))),
                    el('tbody', {}, detail.members.map((m) => el('tr', { 'data-member': m.jobId },
                        el('td', {}, el('a', { href: '#/jobs/' + m.jobId, text: '#' + m.jobId })),
                        el('td', {}, el('a', { href: '#/queues/' + encodeURIComponent(m.queue), text: m.queue })),
                        el('td', {}, badge(m.state)), el('td', { class: 'num', text: count(m.attempts) }),
                        el('td', { class: 'wrap muted', text: m.error || '' })))))
                    : el('p', { class: 'muted', text: 'No live member: finished members are counted above.' }),
                next);
        };
    }

    /** Completed, cancelled, dead, active and (workflows) waiting jobs as one bar. */
    function progressBar(counts) {
        const total = Math.max(1, counts.total);
        const finished = ['completed', 'dead', 'cancelled'].reduce((sum, k) => sum + (counts[k] || 0), 0);
        const bar = el('span', { class: 'wf-progress', title: ['completed', 'active', 'waiting', 'dead', 'cancelled']
            .filter((k) => k in counts).map((k) => k + ' ' + counts[k]).join(', ') },
        ['completed', 'active', 'waiting', 'dead', 'cancelled'].map((k) => counts[k] > 0
            ? el('span', { class: 'wf-' + k, style: 'width:' + (100 * counts[k] / total) + '%' }) : null));
        // the bar's colours say which, the label says how far: finished of all, as a number
        return el('span', { class: 'wf-progress-labelled' }, bar,
            el('span', { class: 'muted wf-progress-label', 'data-progress-label': '', text: count(finished) + ' / ' + count(counts.total) + ' finished' }));
    }

    function workflowPage(state, id) {
        let last = null;
        return async function refresh() {
            const detail = await get('/workflows/' + encodeURIComponent(id));
            const text = JSON.stringify(detail);
            if (state.stale() || text === last) {
                return;
            }
            last = text;
            const w = detail.workflow;
            const actions = el('div', { class: 'actions' }, w.actions.includes('cancel')
                ? actionButton('Cancel workflow', { 'data-action': 'cancel-workflow', class: 'danger' },
                    () => post('/workflows/' + w.id + '/cancel'), 'Cancel every pending node of workflow #' + w.id + '?')
                : null);
            const counts = el('div', { class: 'cards' }, ['waiting', 'active', 'dead', 'completed', 'cancelled', 'total']
                .map((k) => el('div', { class: 'card', 'data-count': k }, el('div', { class: 'label', text: k }),
                    el('div', { class: 'value', text: count(w.counts[k]) }))));
            render(
                el('h1', {}, 'Workflow #' + w.id + ' ', el('span', { class: 'muted', text: w.name }), ' ', badge(w.state)),
                actions, counts, el('p', {}, progressBar(w.counts)),
                w.compensation ? el('p', { id: 'compensation' }, 'Compensation: ',
                    el('a', { href: '#/workflows/' + w.compensation.workflowId, text: '#' + w.compensation.workflowId }),
                    ' ', badge(w.compensation.status)) : null,
                el('h2', { text: 'Graph' }), graph(detail.nodes),
                detail.more ? el('p', { class: 'muted', text: 'Showing the first ' + detail.nodes.length + ' nodes.' }) : null,
                el('h2', { text: 'Nodes' }),
                el('table', { id: 'workflow-nodes' },
                    el('thead', {}, el('tr', {}, ['Node', 'Job', 'Queue', 'State', 'After', 'Error'].map((h) => el('th', { text: h })))),
                    el('tbody', {}, detail.nodes.map((n) => el('tr', { 'data-node-name': n.name },
                        el('td', { text: n.name }),
                        el('td', {}, el('a', { href: '#/jobs/' + n.jobId, text: '#' + n.jobId })),
                        el('td', {}, el('a', { href: '#/queues/' + encodeURIComponent(n.queue), text: n.queue })),
                        el('td', {}, badge(n.state)), el('td', { class: 'wrap', text: n.parents.join(', ') }),
                        el('td', { class: 'wrap muted', text: n.error || '' }))))));
        };
    }

    /**
     * The graph as layers: a node's layer is one more than its deepest parent's; edges are drawn from each
     * parent to its child, nodes coloured by state and linked to their jobs.
     */
    function graph(nodes) {
        const byName = new Map(nodes.map((n) => [n.name, n]));
        const depth = new Map();
        const depthOf = (name) => {
            if (depth.has(name)) {
                return depth.get(name);
            }
            depth.set(name, 0);
            const node = byName.get(name);
            const d = node ? node.parents.filter((p) => byName.has(p)).reduce((max, p) => Math.max(max, depthOf(p) + 1), 0) : 0;
            depth.set(name, d);
            return d;
        };
        const layers = [];
        nodes.forEach((n) => {
            const d = depthOf(n.name);
            (layers[d] = layers[d] || []).push(n);
        });
        const W = 150;
        const H = 30;
        const GX = 24;
        const GY = 40;
        const widest = Math.max(1, ...layers.map((l) => l.length));
        const width = widest * (W + GX) + GX;
        const height = layers.length * (H + GY) + GY;
        const at = new Map();
        layers.forEach((layer, y) => layer.forEach((n, x) => {
            const offset = (width - layer.length * (W + GX) - GX) / 2;
            at.set(n.name, { x: GX + offset + x * (W + GX), y: GY / 2 + y * (H + GY) });
        }));
        const chart = svg('svg', { id: 'workflow-graph', viewBox: '0 0 ' + width + ' ' + height, width: width, height: height });
        nodes.forEach((n) => n.parents.filter((p) => at.has(p)).forEach((p) => {
            const from = at.get(p);
            const to = at.get(n.name);
            chart.append(svg('line', { x1: from.x + W / 2, y1: from.y + H, x2: to.x + W / 2, y2: to.y, class: 'wf-edge' }));
        }));
        nodes.forEach((n) => {
            const p = at.get(n.name);
            const link = svg('a', { href: '#/jobs/' + n.jobId, 'data-graph-node': n.name, 'data-state': n.state });
            link.append(svg('rect', { x: p.x, y: p.y, width: W, height: H, rx: 6, class: 'wf-node ' + n.state }));
            const label = svg('text', { x: p.x + W / 2, y: p.y + H / 2 + 4, 'text-anchor': 'middle' });
            label.textContent = n.name.length > 20 ? n.name.substring(0, 19) + '…' : n.name;
            const title = svg('title', {});
            title.textContent = n.name + ' (' + n.state + ')';
            link.append(label, title);
            chart.append(link);
        });
        return el('div', { class: 'graph-box' }, chart);
    }

    function nodesPage(state) {
        return async function refresh() {
            const nodes = await get('/nodes');
            if (state.stale()) {
                return;
            }
            render(el('h1', {}, 'Nodes ', el('span', { class: 'muted', text: '(' + nodes.length + ')' })),
                ...nodes.map((node) => el('div', { class: 'panel', 'data-node': node.id },
                    el('dl', { class: 'fields' },
                        el('dt', { text: 'Node' }), el('dd', { text: node.id }),
                        el('dt', { text: 'Host / pid' }), el('dd', { text: node.host + ' / ' + node.pid }),
                        el('dt', { text: 'Joined' }), el('dd', {}, when(node.startedAt)),
                        el('dt', { text: 'Last heartbeat' }), el('dd', {}, when(node.heartbeatAt)),
                        el('dt', { text: 'Jobs in flight' }), el('dd', { text: count(node.inFlight) })),
                    el('h2', { text: 'Containers' }),
                    el('table', {}, el('thead', {}, el('tr', {}, ['Container', 'Queue', 'Mode', 'Concurrency', 'Batch',
                        'In flight', 'Status'].map((h) => el('th', { text: h })))),
                    el('tbody', {}, node.containers.length ? node.containers.map((c) => el('tr', { 'data-container': c.id },
                        el('td', { text: c.id }), el('td', {}, el('a', { href: '#/queues/' + encodeURIComponent(c.queue), text: c.queue })),
                        el('td', { text: c.mode }), el('td', { class: 'num', text: c.concurrency }),
                        el('td', { class: 'num', text: c.batchSize }), el('td', { class: 'num', 'data-col': 'inFlight', text: c.inFlight }),
                        el('td', {}, c.running ? el('span', { class: 'muted', text: 'running' }) : badge('dead'))))
                        : el('tr', {}, el('td', { colspan: 7, class: 'muted', text: 'No listeners on this node.' })))))));
        };
    }

    // ---- routing --------------------------------------------------------------------------------------

    function navigate(path, values) {
        const query = new URLSearchParams(values).toString();
        location.hash = path.substring(1) + (query ? '?' + query : '');
    }

    function route() {
        if (timer) {
            clearTimeout(timer);
            timer = null;
        }
        const mine = ++generation;
        const state = { stale: () => mine !== generation };
        const hash = location.hash.replace(/^#/, '') || '/';
        const [path, queryString] = hash.split('?');
        const params = new URLSearchParams(queryString || '');
        const parts = path.split('/').filter((p) => p).map(decodeURIComponent);
        let refresh;
        // a queue's or a job's page is none of the navigation's pages: nothing is highlighted there
        let nav = null;
        if (parts.length === 0) {
            refresh = overviewPage(state);
            nav = 'overview';
        } else if (parts[0] === 'queues' && parts.length === 2) {
            refresh = queuePage(state, parts[1], params);
        } else if (parts[0] === 'queues' && parts[2] === 'dead') {
            refresh = deadPage(state, parts[1], params);
        } else if (parts[0] === 'jobs' && parts.length === 2) {
            refresh = jobPage(state, parts[1]);
        } else if (parts[0] === 'workflows' && parts.length === 2) {
            refresh = workflowPage(state, parts[1]);
        } else if (parts[0] === 'workflows') {
            refresh = workflowsPage(state, params);
            nav = 'workflows';
        } else if (parts[0] === 'batches' && parts.length === 2) {
            refresh = batchPage(state, parts[1], params);
        } else if (parts[0] === 'batches') {
            refresh = batchesPage(state, params);
            nav = 'batches';
        } else if (parts[0] === 'schedules') {
            refresh = schedulesPage(state);
            nav = 'schedules';
        } else if (parts[0] === 'nodes') {
            refresh = nodesPage(state);
            nav = 'nodes';
        } else {
            render(el('h1', { text: 'Not found' }), el('a', { href: '#/', text: 'Overview' }));
            return;
        }
        document.querySelectorAll('[data-nav]').forEach((a) => a.classList.toggle('active', a.dataset.nav === nav));
        if (refresh) {
            const tick = async () => {
                try {
                    await refresh();
                } catch (error) {
                    if (!state.stale()) {
                        flash('Could not refresh: ' + error.message, 'error');
                    }
                }
                if (!state.stale()) {
                    timer = setTimeout(tick, REFRESH);
                }
            };
            tick();
        }
    }

    document.getElementById('who').textContent = (USER ? 'signed in as ' + USER : 'not signed in')
        + (WRITABLE ? '' : ' · read-only');
    if (!WRITABLE && REFUSAL) {
        const banner = document.getElementById('banner');
        banner.textContent = REFUSAL;
        banner.hidden = false;
    }
    window.addEventListener('hashchange', () => {
        document.getElementById('flash').hidden = true;
        route();
    });
    route();
}());
