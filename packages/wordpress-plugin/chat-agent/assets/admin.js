/* Chat agent settings page: Test connection, Sync now and the progress poll (no build step). */
(() => {
  var config = window.chatAgentAdmin;
  if (!config) {
    return;
  }
  var $ = (id) => document.getElementById(id);
  var pollTimer = null;

  function post(action, fields) {
    var body = new URLSearchParams();
    body.set('action', action);
    body.set('nonce', config.nonce);
    Object.keys(fields || {}).forEach((key) => {
      body.set(key, fields[key]);
    });
    return fetch(config.ajaxUrl, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    }).then((response) => response.json().catch(() => ({ ok: false, message: config.i18n.requestFailed })));
  }

  function setText(element, text, isError) {
    if (!element) {
      return;
    }
    element.textContent = text;
    element.classList.toggle('is-error', !!isError);
    element.classList.toggle('is-ok', !isError);
  }

  function fillAgents(agents, selected) {
    var select = $('chat-agent-agent');
    if (!select || !agents) {
      return;
    }
    var current = selected || select.value;
    while (select.options.length > 0) {
      select.remove(0);
    }
    select.add(new Option(config.i18n.chooseAgent, ''));
    agents.forEach((agent) => {
      var option = new Option(agent.name || agent.id, agent.id);
      option.selected = agent.id === current;
      select.add(option);
    });
  }

  function showStatus(status) {
    var bar = $('chat-agent-sync-progress');
    if (bar && typeof status.percent === 'number') {
      bar.setAttribute('data-status', status.status || 'idle');
      bar.setAttribute('aria-valuenow', String(status.percent));
      var fill = bar.querySelector('.chat-agent-progress-bar');
      if (fill) {
        fill.style.width = status.percent + '%';
      }
    }
    setText(
      $('chat-agent-sync-status'),
      status.message || '',
      status.status === 'failed' || status.ok === false,
    );
    var list = $('chat-agent-sync-failures');
    if (list && Array.isArray(status.failures)) {
      list.textContent = '';
      if (status.failures.length === 0) {
        var none = document.createElement('li');
        none.className = 'chat-agent-none';
        none.textContent = config.i18n.noFailures;
        list.appendChild(none);
      }
      status.failures.forEach((failure) => {
        var item = document.createElement('li');
        var time = document.createElement('time');
        time.textContent = failure.time;
        var what = document.createElement('strong');
        what.textContent = failure.what;
        item.appendChild(time);
        item.appendChild(document.createTextNode(' '));
        item.appendChild(what);
        item.appendChild(document.createTextNode(': ' + failure.message));
        list.appendChild(item);
      });
    }
    if (status.status === 'running') {
      schedulePoll();
    }
  }

  function schedulePoll() {
    if (pollTimer) {
      return;
    }
    pollTimer = window.setTimeout(() => {
      pollTimer = null;
      post('chat_agent_sync_status').then(showStatus, () => {
        setText($('chat-agent-sync-status'), config.i18n.requestFailed, true);
      });
    }, 1500);
  }

  var testButton = $('chat-agent-test-connection');
  if (testButton) {
    testButton.addEventListener('click', () => {
      var result = $('chat-agent-connection-result');
      setText(result, config.i18n.testing, false);
      testButton.disabled = true;
      post('chat_agent_test_connection', {
        service_url: ($('chat-agent-service-url') || {}).value || '',
        api_token: ($('chat-agent-api-token') || {}).value || '',
      })
        .then(
          (answer) => {
            setText(result, answer.message || config.i18n.requestFailed, !answer.ok);
            if (answer.ok) {
              fillAgents(answer.agents, answer.agent_id);
            }
          },
          () => {
            setText(result, config.i18n.requestFailed, true);
          },
        )
        .then(() => {
          testButton.disabled = false;
        });
    });
  }

  var syncButton = $('chat-agent-sync-now');
  if (syncButton) {
    syncButton.addEventListener('click', () => {
      setText($('chat-agent-sync-status'), config.i18n.starting, false);
      post('chat_agent_sync_now').then(showStatus, () => {
        setText($('chat-agent-sync-status'), config.i18n.requestFailed, true);
      });
    });
  }

  var bar = $('chat-agent-sync-progress');
  if (bar && bar.getAttribute('data-status') === 'running') {
    schedulePoll();
  }
})();
