/** The signed-in frame: skip link, navigation (a menu on phones), organisation and environment switches, sign-out. */
import { useState } from "react";
import { NavLink, Outlet, useLocation } from "react-router";
import { useAuth } from "../auth/auth-context";
import { useOrganisation } from "../auth/organisation-context";
import { useEnvironment, withEnvironment } from "../lib/environment";
import { InvitationsPrompt } from "../pages/members/InvitationsPrompt";

function OrganisationSwitcher() {
  const { me, orgId, role, setOrgId } = useOrganisation();
  if (me.organisations.length < 2) {
    return (
      <p className="header__org">
        <span className="visually-hidden">Organisation: </span>
        {orgId} <span className="muted">({role})</span>
      </p>
    );
  }
  return (
    <label className="header__field">
      <span>Organisation</span>
      <select value={orgId} onChange={(event) => setOrgId(event.target.value)}>
        {me.organisations.map((org) => (
          <option key={org.orgId} value={org.orgId}>
            {org.orgId} ({org.role})
          </option>
        ))}
      </select>
    </label>
  );
}

function EnvironmentSwitch() {
  const [environment, setEnvironment] = useEnvironment();
  return (
    <fieldset className="env-switch">
      <legend className="visually-hidden">Environment</legend>
      {(["live", "test"] as const).map((value) => (
        <label key={value} className={`env-switch__option${environment === value ? " env-switch__option--on" : ""}`}>
          <input
            type="radio"
            className="env-switch__input"
            name="environment"
            value={value}
            checked={environment === value}
            onChange={() => setEnvironment(value)}
          />
          {value === "live" ? "Live" : "Test"}
        </label>
      ))}
    </fieldset>
  );
}

export function Layout() {
  const { signOut } = useAuth();
  const { me } = useOrganisation();
  const [environment] = useEnvironment();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const [lastPath, setLastPath] = useState(location.pathname);
  if (lastPath !== location.pathname) {
    setLastPath(location.pathname);
    setMenuOpen(false);
  }
  const links = [
    { to: withEnvironment("/", environment), label: "Overview", end: true },
    { to: withEnvironment("/sessions", environment), label: "Sessions" },
    { to: withEnvironment("/conversations", environment), label: "Conversations" },
    { to: withEnvironment("/agents", environment), label: "Agents" },
    { to: withEnvironment("/alerts", environment), label: "Alerts" },
    { to: withEnvironment("/settings/prices", environment), label: "Models and prices" },
    { to: withEnvironment("/settings/scores", environment), label: "Score configurations" },
    { to: withEnvironment("/settings/keys", environment), label: "API keys" },
    { to: withEnvironment("/settings/members", environment), label: "Members" },
  ];
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="header">
        <div className="header__bar">
          <span className="header__brand">Agent Tracking</span>
          <button
            type="button"
            className="button header__menu"
            aria-expanded={menuOpen}
            aria-controls="primary-nav"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            Menu
          </button>
        </div>
        <div id="primary-nav" className={`header__nav${menuOpen ? " header__nav--open" : ""}`}>
          <nav aria-label="Main">
            <ul className="nav">
              {links.map((link) => (
                <li key={link.label}>
                  <NavLink to={link.to} end={link.end === true} className="nav__link">
                    {link.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
          <div className="header__tools">
            <EnvironmentSwitch />
            <OrganisationSwitcher />
            <span className="header__user muted">{me.email}</span>
            <button type="button" className="button" onClick={signOut}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" className="page" tabIndex={-1}>
        <InvitationsPrompt />
        <Outlet />
      </main>
    </div>
  );
}
