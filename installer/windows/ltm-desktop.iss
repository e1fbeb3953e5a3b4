; Inno Setup 6 script for LTM Desktop on Windows (untested here: built and smoke-checked only by the CI
; workflow's windows job). Per-user install, no administrator rights needed:
;   iscc /DAppVersion=0.1.0 installer\windows\ltm-desktop.iss   ->  dist\LTM-Desktop-0.1.0-windows-x64-setup.exe
; It packs dist\ltm-desktop (the PyInstaller folder: "LTM Desktop.exe" for the tray, ltm-desktop.exe for the
; command line and for AI apps' stdio configs). Data lives in %LOCALAPPDATA%\ltm-desktop and is kept on uninstall.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\ltm-desktop"
#endif

[Setup]
AppId={{6F1C2E7A-4B8D-4C3E-9A51-2D7E8F0B9C41}
AppName=LTM Desktop
AppVersion={#AppVersion}
AppPublisher=LTM Desktop
DefaultDirName={localappdata}\Programs\LTM Desktop
DefaultGroupName=LTM Desktop
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=LTM-Desktop-{#AppVersion}-windows-x64-setup
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
UninstallDisplayIcon={app}\LTM Desktop.exe
; An upgrade or uninstall must not pull files from under a running tray, server or database.
CloseApplications=yes
RestartApplications=no
InfoAfterFile=tesseract-note.txt

[Tasks]
Name: "autostart"; Description: "Start LTM Desktop when I sign in"; GroupDescription: "Startup:"
Name: "desktopicon"; Description: "Create a desktop shortcut"; GroupDescription: "Shortcuts:"; Flags: unchecked

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\LTM Desktop"; Filename: "{app}\LTM Desktop.exe"
Name: "{group}\Uninstall LTM Desktop"; Filename: "{uninstallexe}"
Name: "{userdesktop}\LTM Desktop"; Filename: "{app}\LTM Desktop.exe"; Tasks: desktopicon

[Registry]
; The same value the app's own "Start at login" switch writes, so the two agree.
Root: HKCU; Subkey: "Software\Microsoft\Windows\CurrentVersion\Run"; ValueType: string; ValueName: "LTM Desktop"; \
  ValueData: """{app}\LTM Desktop.exe"""; Tasks: autostart; Flags: uninsdeletevalue

[Run]
Filename: "{app}\LTM Desktop.exe"; Description: "Start LTM Desktop now"; Flags: nowait postinstall skipifsilent

[UninstallRun]
; Stop the embedded database (it runs from {app}) before its files are removed.
Filename: "{app}\ltm-desktop.exe"; Parameters: "db stop"; Flags: runhidden waituntilterminated; RunOnceId: "StopDatabase"
